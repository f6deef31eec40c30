//! The viewer's orbit camera: it turns about a target, pans the target in the view plane and
//! zooms toward it. Framed on a box it is exactly the camera `sinew render` frames that box
//! with.

use glam::{Quat, Vec3};

use crate::math::Aabb;
use crate::render::{Camera, CameraFraming, STAGE_FOV_Y, STAGE_VIEW_DIRECTION};

/// Radians of orbit per pixel dragged.
const ORBIT_PER_PIXEL: f32 = 0.008;

/// Closest the eye comes to straight above or below the target (radians from the pole).
const POLE_MARGIN: f32 = 0.02;

/// An orbit camera: an eye turning about a target, Y up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// Where the camera stands.
    pub eye: Vec3,
    /// What it looks at.
    pub target: Vec3,
    /// Vertical field of view, radians.
    pub fov_y: f32,
    up: Vec3,
    near: f32,
    far: f32,
}

impl OrbitCamera {
    /// The camera `sinew render` uses for `aabb` (see
    /// [`Stage::framing_camera`](crate::render::Stage::framing_camera)).
    pub fn framing(aabb: &Aabb, aspect: f32) -> Self {
        let f = CameraFraming::of(aabb, STAGE_VIEW_DIRECTION, STAGE_FOV_Y, aspect);
        Self {
            eye: f.eye,
            target: f.target,
            fov_y: STAGE_FOV_Y,
            up: f.up,
            near: f.near,
            far: f.far,
        }
    }

    /// The camera for an image of `aspect` (width / height).
    pub fn camera(&self, aspect: f32) -> Camera {
        let aspect = if aspect.is_finite() && aspect > 0.0 {
            aspect
        } else {
            1.0
        };
        Camera::look_at(
            self.eye,
            self.target,
            self.up,
            self.fov_y,
            aspect,
            self.near,
            self.far,
        )
    }

    /// Distance from the eye to the target.
    pub fn distance(&self) -> f32 {
        (self.eye - self.target).length()
    }

    /// Turns the eye about the target by a drag of `(dx, dy)` pixels: about +Y, then about the
    /// view's horizontal axis, stopping short of the poles.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        let offset = self.eye - self.target;
        let yaw = Quat::from_rotation_y(-dx * ORBIT_PER_PIXEL);
        let offset = yaw * offset;
        let right = Vec3::Y.cross(offset).try_normalize().unwrap_or(Vec3::X);
        let pitched = Quat::from_axis_angle(right, dy * ORBIT_PER_PIXEL) * offset;
        let polar = pitched.angle_between(Vec3::Y);
        let offset = if (POLE_MARGIN..=std::f32::consts::PI - POLE_MARGIN).contains(&polar) {
            pitched
        } else {
            offset
        };
        self.eye = self.target + offset;
        self.up = Vec3::Y;
    }

    /// Moves eye and target together by a drag of `(dx, dy)` pixels in a view `height` pixels
    /// tall, so the point under the cursor follows it.
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let offset = self.eye - self.target;
        let back = offset.try_normalize().unwrap_or(Vec3::Z);
        let right = self.up.cross(back).try_normalize().unwrap_or(Vec3::X);
        let up = back.cross(right);
        let per_pixel = 2.0 * offset.length() * (self.fov_y * 0.5).tan() / height.max(1.0);
        let shift = (-dx * right + dy * up) * per_pixel;
        self.eye += shift;
        self.target += shift;
    }

    /// Moves the eye toward the target (`steps` > 0) or away, 10% of the distance per step;
    /// the near plane scales with it and the far plane keeps its distance behind the target.
    pub fn zoom(&mut self, steps: f32) {
        let factor = 0.9f32.powf(steps).clamp(0.01, 100.0);
        let before = self.distance();
        let offset = (self.eye - self.target) * factor;
        if offset.length() > 1e-4 {
            self.eye = self.target + offset;
            self.near *= factor;
            self.far += offset.length() - before;
        }
    }
}

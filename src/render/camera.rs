//! Cameras, frustum planes, automatic framing of a box, and the directional light with its
//! shadow projection. Clip space is wgpu's: x and y in -1..1, depth in 0..1.

use glam::camera::rh::{proj::directx, view::look_at_mat4};
use glam::{Mat4, Vec3, Vec4, Vec4Swizzles};

use crate::math::Aabb;

/// A perspective camera: view and projection matrices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// World to view space.
    pub view: Mat4,
    /// View to clip space (depth 0..1).
    pub projection: Mat4,
}

impl Camera {
    /// A right-handed camera at `eye` looking at `target`, `fov_y` radians vertically.
    pub fn look_at(
        eye: Vec3,
        target: Vec3,
        up: Vec3,
        fov_y: f32,
        aspect: f32,
        near: f32,
        far: f32,
    ) -> Self {
        Self {
            view: look_at_mat4(eye, target, up),
            projection: directx::perspective(fov_y, aspect, near, far),
        }
    }

    /// A camera that fits `aabb` into the view: looking at the box centre from `direction`
    /// (from the centre toward the eye), Y up, `fov_y` radians vertically, as close as it can
    /// be with all eight corners inside the view (plus a 5% margin). An empty or non-finite box
    /// is framed as a unit sphere at the origin.
    pub fn frame_aabb(aabb: &Aabb, direction: Vec3, fov_y: f32, aspect: f32) -> Self {
        let f = CameraFraming::of(aabb, direction, fov_y, aspect);
        Self::look_at(f.eye, f.target, f.up, fov_y, aspect, f.near, f.far)
    }

    /// The eye's position in world space.
    pub fn position(&self) -> Vec3 {
        self.view.inverse().w_axis.xyz()
    }

    /// World to clip space.
    pub fn view_projection(&self) -> Mat4 {
        self.projection * self.view
    }

    /// The six frustum planes, normalized, normals pointing inside: left, right, bottom, top,
    /// near, far. A point `p` is inside when `n · p + w >= 0` for all six.
    pub fn frustum_planes(&self) -> [Vec4; 6] {
        frustum_planes(&self.view_projection())
    }

    /// `p` in normalized device coordinates (x, y in -1..1, depth in 0..1 when in view).
    pub fn project(&self, p: Vec3) -> Vec3 {
        self.view_projection().project_point3(p)
    }

    /// `p` in pixels of a `width` x `height` target (origin at the top left, y down), and
    /// whether it lies in front of the camera.
    pub fn to_pixel(&self, p: Vec3, width: u32, height: u32) -> (f32, f32, bool) {
        let clip = self.view_projection() * p.extend(1.0);
        let ndc = clip.xyz() / clip.w;
        (
            (ndc.x * 0.5 + 0.5) * width as f32,
            (0.5 - ndc.y * 0.5) * height as f32,
            clip.w > 0.0,
        )
    }
}

/// The six planes (left, right, bottom, top, near, far; normals inside, normalized) of the
/// frustum of a world-to-clip matrix with depth 0..1.
pub fn frustum_planes(view_proj: &Mat4) -> [Vec4; 6] {
    let m = view_proj.transpose();
    let (r0, r1, r2, r3) = (m.x_axis, m.y_axis, m.z_axis, m.w_axis);
    [r3 + r0, r3 - r0, r3 + r1, r3 - r1, r2, r3 - r2].map(|p| {
        let len = p.xyz().length();
        if len > 0.0 { p / len } else { p }
    })
}

/// Centre and radius of the sphere around `aabb`; a unit sphere at the origin for an empty or
/// non-finite box.
pub fn bounding_sphere(aabb: &Aabb) -> (Vec3, f32) {
    let (lo, hi) = (Vec3::from(aabb.min3()), Vec3::from(aabb.max3()));
    if aabb.is_empty() || !lo.is_finite() || !hi.is_finite() {
        return (Vec3::ZERO, 1.0);
    }
    let radius = (0.5 * (hi - lo).length()).max(1e-4);
    ((lo + hi) * 0.5, radius)
}

/// One directional light plus ambient.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DirectionalLight {
    /// The direction the light travels in (normalized when used).
    pub direction: Vec3,
    /// Light colour times intensity (linear rgb).
    pub color: Vec3,
    /// Ambient colour (linear rgb).
    pub ambient: Vec3,
}

impl Default for DirectionalLight {
    /// A warm key light from above, in front and to the right, over a cool ambient.
    fn default() -> Self {
        Self {
            direction: Vec3::new(-0.4, -1.0, -0.6).normalize(),
            color: Vec3::new(1.0, 0.96, 0.9),
            ambient: Vec3::new(0.16, 0.18, 0.22),
        }
    }
}

/// Where the shadow map goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShadowSettings {
    /// The region whose casters and receivers the shadow map covers.
    pub bounds: Aabb,
    /// Subtracted from the receiver's light-space depth before the comparison (0..1 depth).
    pub depth_bias: f32,
}

impl ShadowSettings {
    /// Shadows over `bounds` with a default bias.
    pub fn covering(bounds: Aabb) -> Self {
        Self {
            bounds,
            depth_bias: 0.002,
        }
    }
}

impl DirectionalLight {
    /// The light's world-to-clip matrix: an orthographic projection along the light covering
    /// the bounding sphere of `bounds`.
    pub fn view_projection(&self, bounds: &Aabb) -> Mat4 {
        let (center, radius) = bounding_sphere(bounds);
        let direction = self.direction.try_normalize().unwrap_or(Vec3::NEG_Y);
        let up = if direction.cross(Vec3::Y).length_squared() < 1e-6 {
            Vec3::Z
        } else {
            Vec3::Y
        };
        let eye = center - direction * (radius * 2.0);
        let view = look_at_mat4(eye, center, up);
        let projection =
            directx::orthographic(-radius, radius, -radius, radius, radius * 0.5, radius * 3.5);
        projection * view
    }
}

/// Where [`Camera::frame_aabb`] puts its camera: eye, target, up and depth range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraFraming {
    /// Where the camera stands.
    pub eye: Vec3,
    /// The point it looks at (the box's bounding-sphere centre).
    pub target: Vec3,
    /// Its up direction.
    pub up: Vec3,
    /// Near plane distance.
    pub near: f32,
    /// Far plane distance.
    pub far: f32,
}

impl CameraFraming {
    /// The framing of `aabb` seen from `direction` (see [`Camera::frame_aabb`]).
    pub fn of(aabb: &Aabb, direction: Vec3, fov_y: f32, aspect: f32) -> Self {
        let (center, radius) = bounding_sphere(aabb);
        let back = direction.try_normalize().unwrap_or(Vec3::Z);
        let up = if back.cross(Vec3::Y).length_squared() < 1e-6 {
            Vec3::Z
        } else {
            Vec3::Y
        };
        let right = up.cross(back).normalize();
        let true_up = back.cross(right);
        let tan_y = (fov_y * 0.5).tan();
        let tan_x = tan_y * aspect;
        let corners: Vec<Vec3> = if aabb.is_empty() || !aabb.min3().is_finite() {
            vec![center - Vec3::splat(radius), center + Vec3::splat(radius)]
        } else {
            (0..8)
                .map(|i| {
                    Vec3::new(
                        if i & 1 == 0 { aabb.min[0] } else { aabb.max[0] },
                        if i & 2 == 0 { aabb.min[1] } else { aabb.max[1] },
                        if i & 4 == 0 { aabb.min[2] } else { aabb.max[2] },
                    )
                })
                .collect()
        };
        let mut distance: f32 = radius * 0.1;
        let mut nearest = f32::INFINITY;
        for c in &corners {
            let o = *c - center;
            let h = o.dot(back);
            let need = h + (o.dot(right).abs() / tan_x).max(o.dot(true_up).abs() / tan_y) * 1.05;
            distance = distance.max(need);
            nearest = nearest.min(-h);
        }
        let eye = center + back * distance;
        let near = ((distance + nearest) * 0.5).max(distance * 0.01);
        let far = distance + radius * 2.0;
        Self {
            eye,
            target: center,
            up,
            near,
            far,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framed_box_corners_project_inside_the_view() {
        let aabb = Aabb {
            min: [-0.3, 0.0, -0.2, 0.0],
            max: [0.3, 1.8, 0.25, 0.0],
        };
        let camera = Camera::frame_aabb(&aabb, Vec3::new(0.5, 0.3, 1.0), 0.7, 1.5);
        for i in 0..8 {
            let c = Vec3::new(
                if i & 1 == 0 { aabb.min[0] } else { aabb.max[0] },
                if i & 2 == 0 { aabb.min[1] } else { aabb.max[1] },
                if i & 4 == 0 { aabb.min[2] } else { aabb.max[2] },
            );
            let ndc = camera.project(c);
            assert!(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0, "{c} -> {ndc}");
            assert!((0.0..=1.0).contains(&ndc.z), "{c} -> {ndc}");
            for plane in camera.frustum_planes() {
                assert!(plane.truncate().dot(c) + plane.w >= 0.0);
            }
        }
    }

    #[test]
    fn frustum_planes_reject_points_behind_the_camera() {
        let camera = Camera::look_at(Vec3::Z * 5.0, Vec3::ZERO, Vec3::Y, 1.0, 1.0, 0.1, 100.0);
        let behind = Vec3::Z * 10.0;
        assert!(
            camera
                .frustum_planes()
                .iter()
                .any(|p| p.truncate().dot(behind) + p.w < 0.0)
        );
    }
}

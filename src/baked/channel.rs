//! What a track animates and how values between its keys are found.

/// Which part of a joint's transform a track animates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    /// Translation, keys are `(x, y, z, 0)`.
    Translation = 0,
    /// Rotation, keys are unit quaternions `(x, y, z, w)`.
    Rotation = 1,
    /// Scale, keys are `(x, y, z, 0)`.
    Scale = 2,
}

impl Channel {
    /// All three channels, in storage order.
    pub const ALL: [Channel; 3] = [Channel::Translation, Channel::Rotation, Channel::Scale];

    /// The channel's lower-case name, as glTF spells its path.
    pub fn name(self) -> &'static str {
        match self {
            Channel::Translation => "translation",
            Channel::Rotation => "rotation",
            Channel::Scale => "scale",
        }
    }
}

/// How values between two keys are found (glTF sampler interpolation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Hold the earlier key.
    Step = 0,
    /// Linear for translation and scale, shortest-arc slerp for rotation.
    Linear = 1,
    /// Cubic Hermite spline with per-key in and out tangents.
    CubicSpline = 2,
}

impl Interpolation {
    /// The glTF name of the mode.
    pub fn name(self) -> &'static str {
        match self {
            Interpolation::Step => "STEP",
            Interpolation::Linear => "LINEAR",
            Interpolation::CubicSpline => "CUBICSPLINE",
        }
    }

    /// Decodes the number stored in baked track descriptors.
    pub fn from_u32(v: u32) -> Option<Self> {
        match v {
            0 => Some(Self::Step),
            1 => Some(Self::Linear),
            2 => Some(Self::CubicSpline),
            _ => None,
        }
    }
}

//! The synthetic rigs of `assets/synthetic/`: each exercises what the humanoid does not.

pub(crate) mod chain256;
pub(crate) mod fan;
pub(crate) mod features;
pub(crate) mod influences;
pub(crate) mod morph;
pub(crate) mod normal_map;
pub(crate) mod rig64;

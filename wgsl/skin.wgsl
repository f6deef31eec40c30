// Stage 4, skin: model matrix x inverse bind, the palette entry a vertex shader reads. Twin of
// src/cpu/skin.rs.

// The palette entry of joint `joint` of `rig` with model matrix `model`.
fn skin_joint(rig: RigDesc, joint: u32, model: Mat3x4Rows) -> Mat3x4Rows {
    return affine_mul(model, joints[rig.joint_offset + joint].inverse_bind);
}

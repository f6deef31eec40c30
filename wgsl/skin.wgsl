// Stage 4, skin: model matrix x inverse bind, the palette entry a vertex shader reads. Twin of
// src/cpu/skin.rs.

// The palette entry of a joint with model matrix `model` and inverse bind `inverse_bind`.
fn skin_joint(model: Mat3x4Rows, inverse_bind: Mat3x4Rows) -> Mat3x4Rows {
    return affine_mul(model, inverse_bind);
}

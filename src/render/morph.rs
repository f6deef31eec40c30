//! Morph targets in the render passes: the displacements of a batch's meshes packed into one
//! storage buffer (so a render pipeline binds one buffer for them, whatever the mesh count), and
//! the CPU twin of `wgsl/render/morph.wgsl`, applied before skinning.

use glam::Vec3;

use crate::baked::{SkinnedMesh, WEIGHTS_PER_CHUNK, WEIGHTS_PER_ENTRY};
use crate::math::Mat3x4Rows;

/// The displacements of `meshes` packed vertex-major, mesh after mesh (target `t` of vertex `v`
/// of mesh `m` at `offsets[m] + (v * targets + t) * 6`: position delta xyz, normal delta xyz),
/// and each mesh's offset in floats. Never empty (a storage binding cannot be). This is the
/// layout `morph_vertex` (and its WGSL twin) reads; a host binds it beside the palette.
pub fn pack_deltas(meshes: &[SkinnedMesh]) -> (Vec<f32>, Vec<u32>) {
    let mut out = Vec::new();
    let mut offsets = Vec::with_capacity(meshes.len());
    for mesh in meshes {
        offsets.push(out.len() as u32);
        let targets = mesh.morph.target_count as usize;
        for v in 0..mesh.vertex_count() {
            for t in 0..targets {
                let (dp, dn) = mesh.morph.delta(t, v).unwrap_or((Vec3::ZERO, Vec3::ZERO));
                out.extend_from_slice(&dp.to_array());
                out.extend_from_slice(&dn.to_array());
            }
        }
    }
    if out.is_empty() {
        out.resize(4, 0.0);
    }
    (out, offsets)
}

/// Palette entries of morph weights `meshes` read after an instance's joint entries: enough to
/// hold the last weight any of them uses (0 when none has targets).
pub(crate) fn morph_entries(meshes: &[SkinnedMesh]) -> u64 {
    meshes
        .iter()
        .filter(|m| !m.morph.is_empty())
        .map(|m| {
            let end = m.morph.first_weight as usize + m.morph.target_count as usize;
            end.div_ceil(WEIGHTS_PER_ENTRY) as u64
        })
        .max()
        .unwrap_or(0)
}

/// Weight `index` of the weights held after the `joint_count` joint entries of the palette block
/// `block` (0 past the block). Twin of `sinew_morph_weight`.
fn morph_weight(block: &[Mat3x4Rows], joint_count: usize, index: usize) -> f32 {
    block
        .get(joint_count + index / WEIGHTS_PER_ENTRY)
        .map_or(0.0, |e| {
            e.rows[index % WEIGHTS_PER_ENTRY / WEIGHTS_PER_CHUNK][index % WEIGHTS_PER_CHUNK]
        })
}

/// Vertex `vertex` of `mesh` (bind-space `position` and `normal`) with its morph targets applied
/// at the weights of the instance whose palette block is `block` (`joint_count` joint entries,
/// then the weights): `position + Σ wᵢ·ΔPᵢ`, `normal + Σ wᵢ·ΔNᵢ`, targets of weight 0 skipped.
/// Skin the result (which renormalizes the normal) to get what the render passes draw. Twin of
/// `sinew_morph_vertex` in `wgsl/render/morph.wgsl` ([`MORPH_WGSL`](super::MORPH_WGSL)).
pub fn morph_vertex(
    mesh: &SkinnedMesh,
    vertex: usize,
    block: &[Mat3x4Rows],
    joint_count: usize,
    position: Vec3,
    normal: Vec3,
) -> (Vec3, Vec3) {
    let (mut p, mut n) = (position, normal);
    let morph = &mesh.morph;
    for t in 0..morph.target_count as usize {
        let w = morph_weight(block, joint_count, morph.first_weight as usize + t);
        if w == 0.0 {
            continue;
        }
        let Some((dp, dn)) = morph.delta(t, vertex) else {
            break;
        };
        p += w * dp;
        n += w * dn;
    }
    (p, n)
}

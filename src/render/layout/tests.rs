//! Every `#[repr(C)]` struct of `layout.rs` against its WGSL twin in `layout.wgsl`, as naga
//! lays it out.

use super::*;

/// Member offsets of the WGSL struct `name` and its size, from naga.
fn wgsl_layout(name: &str) -> (Vec<(String, u32)>, u32) {
    let module = naga::front::wgsl::parse_str(super::super::shader::layout_source())
        .expect("layout.wgsl parses"); // ok: unit test
    for (_, ty) in module.types.iter() {
        if ty.name.as_deref() == Some(name)
            && let naga::TypeInner::Struct { members, span } = &ty.inner
        {
            let offsets = members
                .iter()
                .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                .collect();
            return (offsets, *span);
        }
    }
    panic!("struct {name} not found in layout.wgsl"); // ok: unit test
}

fn check(name: &str, size: usize, expected: &[(&str, usize)]) {
    let (members, span) = wgsl_layout(name);
    assert_eq!(
        span as usize, size,
        "{name}: WGSL size {span}, Rust size {size}"
    );
    assert_eq!(
        members.len(),
        expected.len(),
        "{name}: WGSL members {members:?}, Rust {expected:?}"
    );
    for ((wgsl_name, wgsl_offset), (rust_name, rust_offset)) in members.iter().zip(expected) {
        assert_eq!(wgsl_name, rust_name, "{name}: member order");
        assert_eq!(
            *wgsl_offset as usize, *rust_offset,
            "{name}.{wgsl_name}: WGSL offset {wgsl_offset}, Rust offset {rust_offset}"
        );
    }
}

#[test]
fn wgsl_structs_match_rust() {
    check(
        "FrameUniforms",
        size_of::<FrameUniforms>(),
        &[
            ("view_proj", offset_of!(FrameUniforms, view_proj)),
            (
                "light_view_proj",
                offset_of!(FrameUniforms, light_view_proj),
            ),
            (
                "light_direction",
                offset_of!(FrameUniforms, light_direction),
            ),
            ("light_color", offset_of!(FrameUniforms, light_color)),
            ("ambient_color", offset_of!(FrameUniforms, ambient_color)),
            ("shadow", offset_of!(FrameUniforms, shadow)),
            (
                "camera_position",
                offset_of!(FrameUniforms, camera_position),
            ),
        ],
    );
    check(
        "SortParams",
        size_of::<SortParams>(),
        &[
            ("view_depth", offset_of!(SortParams, view_depth)),
            ("size", offset_of!(SortParams, size)),
            ("instance_count", offset_of!(SortParams, instance_count)),
            ("grid_width", offset_of!(SortParams, grid_width)),
            ("k", offset_of!(SortParams, k)),
            ("j", offset_of!(SortParams, j)),
            ("pad0", offset_of!(SortParams, pad)),
            ("pad1", offset_of!(SortParams, pad) + 4),
            ("pad2", offset_of!(SortParams, pad) + 8),
        ],
    );
    use crate::render::MaterialParams as M;
    check(
        "MaterialParams",
        size_of::<M>(),
        &[
            ("base_color", offset_of!(M, base_color)),
            ("alpha_texture_normal", offset_of!(M, alpha_texture_normal)),
            ("sets", offset_of!(M, sets)),
            ("metallic_roughness", offset_of!(M, metallic_roughness)),
            ("emissive", offset_of!(M, emissive)),
            ("textures", offset_of!(M, textures)),
            ("texture_sets", offset_of!(M, texture_sets)),
            ("uv_transforms", offset_of!(M, uv_transforms)),
        ],
    );
    check(
        "SkinnedInstance",
        size_of::<SkinnedInstance>(),
        &[
            (
                "palette_offset",
                offset_of!(SkinnedInstance, palette_offset),
            ),
            ("joint_count", offset_of!(SkinnedInstance, joint_count)),
            ("aabb_index", offset_of!(SkinnedInstance, aabb_index)),
            ("pad", offset_of!(SkinnedInstance, pad)),
            ("color", offset_of!(SkinnedInstance, color)),
        ],
    );
    check(
        "MeshParams",
        size_of::<MeshParams>(),
        &[
            ("color", offset_of!(MeshParams, color)),
            ("vertex_count", offset_of!(MeshParams, vertex_count)),
            (
                "morph_first_weight",
                offset_of!(MeshParams, morph_first_weight),
            ),
            (
                "morph_target_count",
                offset_of!(MeshParams, morph_target_count),
            ),
            (
                "morph_delta_offset",
                offset_of!(MeshParams, morph_delta_offset),
            ),
        ],
    );
    let p = offset_of!(StaticVertex, position);
    let n = offset_of!(StaticVertex, normal);
    check(
        "PackedVertex",
        size_of::<StaticVertex>(),
        &[
            ("px", p),
            ("py", p + 4),
            ("pz", p + 8),
            ("nx", n),
            ("ny", n + 4),
            ("nz", n + 8),
        ],
    );
    let p = offset_of!(SkinnedVertex, position);
    let n = offset_of!(SkinnedVertex, normal);
    let j = offset_of!(SkinnedVertex, joints);
    check(
        "PackedSkinnedVertex",
        size_of::<SkinnedVertex>(),
        &[
            ("px", p),
            ("py", p + 4),
            ("pz", p + 8),
            ("nx", n),
            ("ny", n + 4),
            ("nz", n + 8),
            ("joints", j),
            ("weights", offset_of!(SkinnedVertex, weights)),
        ],
    );
    let w = offset_of!(StaticInstance, world);
    check(
        "StaticInstance",
        size_of::<StaticInstance>(),
        &[
            ("row0", w),
            ("row1", w + 16),
            ("row2", w + 32),
            ("color", offset_of!(StaticInstance, color)),
        ],
    );
    check(
        "Aabb",
        size_of::<crate::Aabb>(),
        &[
            ("min", offset_of!(crate::Aabb, min)),
            ("max", offset_of!(crate::Aabb, max)),
        ],
    );
    check(
        "CullParams",
        size_of::<CullParams>(),
        &[
            ("planes", offset_of!(CullParams, planes)),
            ("light_planes", offset_of!(CullParams, light_planes)),
            ("instance_count", offset_of!(CullParams, instance_count)),
            ("draw_count", offset_of!(CullParams, draw_count)),
            ("grid_width", offset_of!(CullParams, grid_width)),
            ("light_list", offset_of!(CullParams, light_list)),
        ],
    );
    check(
        "DrawArgs",
        size_of::<DrawIndexedArgs>(),
        &[
            ("index_count", offset_of!(DrawIndexedArgs, index_count)),
            (
                "instance_count",
                offset_of!(DrawIndexedArgs, instance_count),
            ),
            ("first_index", offset_of!(DrawIndexedArgs, first_index)),
            ("base_vertex", offset_of!(DrawIndexedArgs, base_vertex)),
            (
                "first_instance",
                offset_of!(DrawIndexedArgs, first_instance),
            ),
        ],
    );
    check(
        "PreskinParams",
        size_of::<PreskinParams>(),
        &[
            ("vertex_count", offset_of!(PreskinParams, vertex_count)),
            ("instance_count", offset_of!(PreskinParams, instance_count)),
            ("grid_width", offset_of!(PreskinParams, grid_width)),
            ("pad", offset_of!(PreskinParams, pad)),
        ],
    );
    check(
        "BoneParams",
        size_of::<BoneParams>(),
        &[
            ("palette_offset", offset_of!(BoneParams, palette_offset)),
            ("joint_count", offset_of!(BoneParams, joint_count)),
            ("bone_count", offset_of!(BoneParams, bone_count)),
            ("pad", offset_of!(BoneParams, pad)),
            ("color", offset_of!(BoneParams, color)),
        ],
    );
}

#[test]
fn skinning_snippet_bone_matches_the_palette_entry() {
    let module = naga::front::wgsl::parse_str(&super::super::shader::skinning_wgsl(0, 0))
        .expect("skinning snippet parses"); // ok: unit test
    let bone = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some("SinewBone"))
        .map(|(_, t)| t.inner.clone());
    match bone {
        Some(naga::TypeInner::Struct { span, .. }) => {
            assert_eq!(span as usize, size_of::<Mat3x4Rows>());
        }
        other => panic!("SinewBone is {other:?}"), // ok: unit test
    }
}

#[test]
fn dispatch_grid_covers_every_item() {
    for items in [0u64, 1, 64, 65, 65_535 * 64, 65_535 * 64 + 1, 10_000_000] {
        let (x, y, w) = dispatch_grid(items, 64);
        assert!(u64::from(x) * u64::from(y) * 64 >= items, "{items}");
        assert_eq!(x, w);
        assert!(x <= 65_535 && y <= 65_535);
    }
}

//! The WGSL of the render passes, assembled from the files in `wgsl/render/`: WGSL has no
//! includes, so each module is the shared files followed by its own, in a fixed order.

/// The skinning functions a host engine includes in its own vertex (or compute) shader: linear
/// blend skinning (`sinew_skin_linear`) and dual-quaternion skinning (`sinew_skin_dual_quat`)
/// from the palette over up to eight influences (`SinewInfluences`), plus `SinewBone`,
/// `SinewSkinned` and small helpers. It declares no
/// binding: declare `sinew_palette: array<SinewBone>` yourself, or use [`skinning_wgsl`].
/// Palette offsets index the bound buffer range: with a palette bound in
/// [`palette_windows`](crate::render::palette_windows), pass offsets relative to the window's
/// `first_entry`.
pub const SKINNING_WGSL: &str = include_str!("../../wgsl/render/skinning.wgsl");

/// The morph-target function a host includes after [`SKINNING_WGSL`] to apply a mesh's targets
/// before skinning (`sinew_morph_vertex`), at the weights the evaluator wrote into each
/// instance's palette block. It declares no binding: declare
/// `sinew_morph_deltas: array<f32>` yourself and fill it with
/// [`pack_deltas`](crate::render::pack_deltas). CPU twin:
/// [`morph_vertex`](crate::render::morph_vertex).
pub const MORPH_WGSL: &str = include_str!("../../wgsl/render/morph.wgsl");

const LAYOUT_WGSL: &str = include_str!("../../wgsl/render/layout.wgsl");
const COMMON_WGSL: &str = include_str!("../../wgsl/render/common.wgsl");
const SKINNED_WGSL: &str = include_str!("../../wgsl/render/skinned.wgsl");
const MATERIAL_WGSL: &str = include_str!("../../wgsl/render/material.wgsl");
const BRDF_WGSL: &str = include_str!("../../wgsl/render/brdf.wgsl");
const STATIC_WGSL: &str = include_str!("../../wgsl/render/static.wgsl");
const CULL_WGSL: &str = include_str!("../../wgsl/render/cull.wgsl");
const SORT_WGSL: &str = include_str!("../../wgsl/render/sort.wgsl");
const PRESKIN_WGSL: &str = include_str!("../../wgsl/render/preskin.wgsl");
const BONES_WGSL: &str = include_str!("../../wgsl/render/bones.wgsl");
const WIRE_WGSL: &str = include_str!("../../wgsl/render/wire.wgsl");
const VELOCITY_WGSL: &str = include_str!("../../wgsl/render/velocity.wgsl");

/// [`SKINNING_WGSL`] preceded by the palette's declaration at `@group(group) @binding(binding)`:
///
/// ```wgsl
/// @group(G) @binding(B) var<storage, read> sinew_palette: array<SinewBone>;
/// ```
///
/// Bind the palette buffer there with a layout entry from
/// [`palette_layout_entry`](crate::render::palette_layout_entry): whole
/// ([`create_palette_bind_group`](crate::render::create_palette_bind_group)), or one window at a
/// time ([`create_palette_window_bind_group`](crate::render::create_palette_window_bind_group)),
/// with offsets relative to the window.
pub fn skinning_wgsl(group: u32, binding: u32) -> String {
    format!(
        "// ---- sinew palette binding ----\n\
         @group({group}) @binding({binding}) var<storage, read> sinew_palette: array<SinewBone>;\n\
         // ---- wgsl/render/skinning.wgsl ----\n{SKINNING_WGSL}"
    )
}

/// The shared struct layouts (`wgsl/render/layout.wgsl`) alone.
pub fn layout_source() -> &'static str {
    LAYOUT_WGSL
}

fn assemble(parts: &[(&str, &str)]) -> String {
    let mut source = String::new();
    for (name, text) in parts {
        source.push_str("// ---- ");
        source.push_str(name);
        source.push_str(" ----\n");
        source.push_str(text);
        source.push('\n');
    }
    source
}

/// The skinned pass module: layout, common, BRDF, skinning (palette at group 1 binding 0),
/// morph, skinned, material, wire (the wireframe's fragment stage).
pub fn skinned_source() -> String {
    assemble(&[
        ("wgsl/render/layout.wgsl", LAYOUT_WGSL),
        ("wgsl/render/common.wgsl", COMMON_WGSL),
        ("wgsl/render/brdf.wgsl", BRDF_WGSL),
        ("sinew palette binding and skinning", &skinning_wgsl(1, 0)),
        ("wgsl/render/morph.wgsl", MORPH_WGSL),
        ("wgsl/render/skinned.wgsl", SKINNED_WGSL),
        ("wgsl/render/material.wgsl", MATERIAL_WGSL),
        ("wgsl/render/wire.wgsl", WIRE_WGSL),
    ])
}

/// The velocity pass module: the skinned pass's module, then the previous palette (group 3,
/// bindings 0 and 1) and velocity.
pub fn velocity_source() -> String {
    assemble(&[
        ("skinned pass module", &skinned_source()),
        (
            "sinew previous palette bindings and previous skinning",
            &super::motion::previous_skinning_wgsl(3, 0, 1),
        ),
        ("wgsl/render/velocity.wgsl", VELOCITY_WGSL),
    ])
}

/// The static pass module: layout, common, static.
pub fn static_source() -> String {
    assemble(&[
        ("wgsl/render/layout.wgsl", LAYOUT_WGSL),
        ("wgsl/render/common.wgsl", COMMON_WGSL),
        ("wgsl/render/static.wgsl", STATIC_WGSL),
    ])
}

/// The culling kernel's module: layout, cull.
pub fn cull_source() -> String {
    assemble(&[
        ("wgsl/render/layout.wgsl", LAYOUT_WGSL),
        ("wgsl/render/cull.wgsl", CULL_WGSL),
    ])
}

/// The blend sort kernels' module: layout, sort.
pub fn sort_source() -> String {
    assemble(&[
        ("wgsl/render/layout.wgsl", LAYOUT_WGSL),
        ("wgsl/render/sort.wgsl", SORT_WGSL),
    ])
}

/// The pre-skinning kernel's module: layout, skinning (palette at group 0 binding 0), morph,
/// preskin.
pub fn preskin_source() -> String {
    assemble(&[
        ("wgsl/render/layout.wgsl", LAYOUT_WGSL),
        ("sinew palette binding and skinning", &skinning_wgsl(0, 0)),
        ("wgsl/render/morph.wgsl", MORPH_WGSL),
        ("wgsl/render/preskin.wgsl", PRESKIN_WGSL),
    ])
}

/// The bone overlay module: layout, common, skinning (palette at group 1 binding 0), bones.
pub fn bones_source() -> String {
    assemble(&[
        ("wgsl/render/layout.wgsl", LAYOUT_WGSL),
        ("wgsl/render/common.wgsl", COMMON_WGSL),
        ("sinew palette binding and skinning", &skinning_wgsl(1, 0)),
        ("wgsl/render/bones.wgsl", BONES_WGSL),
    ])
}

/// Every assembled render module by name, for validation with naga.
pub fn render_sources() -> Vec<(&'static str, String)> {
    vec![
        ("skinned", skinned_source()),
        ("velocity", velocity_source()),
        ("static", static_source()),
        ("cull", cull_source()),
        ("sort", sort_source()),
        ("preskin", preskin_source()),
        ("bones", bones_source()),
        ("skinning snippet", skinning_wgsl(0, 0)),
        (
            "skinning snippet with the previous palette",
            format!(
                "{}\n{}",
                skinning_wgsl(0, 0),
                super::motion::previous_skinning_wgsl(0, 1, 2)
            ),
        ),
    ]
}

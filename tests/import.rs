//! Import, bake and pose every real asset; match the independent three.js reference poses.

#[path = "import/command_line.rs"]
mod command_line;
mod common;
#[path = "import/every_asset.rs"]
mod every_asset;
#[path = "import/fbx.rs"]
mod fbx;
#[path = "import/fbx_blend_shapes.rs"]
mod fbx_blend_shapes;
#[path = "import/fbx_curves.rs"]
mod fbx_curves;
#[path = "import/fbx_materials.rs"]
mod fbx_materials;
#[path = "import/fixtures.rs"]
mod fixtures;
#[path = "import/influences.rs"]
mod influences;
#[path = "import/materials.rs"]
mod materials;
#[path = "import/morph_targets.rs"]
mod morph_targets;
#[path = "import/quantized.rs"]
mod quantized;
#[path = "import/reference_poses.rs"]
mod reference_poses;
#[path = "import/retarget.rs"]
mod retarget;
#[path = "import/settings.rs"]
mod settings;

//! Writes the glTF assets that ship with sinew.
//!
//! ```text
//! cargo run --example generate_assets [OUTPUT_DIR]
//! ```
//!
//! `OUTPUT_DIR` defaults to `assets`. The program writes:
//!
//! * `humanoid.glb`: the default rig, 57 joints, Y up, metres, facing +Z, with
//!   the clips `idle`, `walk`, `run` and `wave`. `walk` and `run` carry root
//!   motion on the `Root` joint (translation along +Z).
//! * `synthetic/chain256.glb`: a 256-joint chain with `linear`, `step` and
//!   `cubic` clips.
//! * `synthetic/fan.glb`: one root joint with 255 direct children and a
//!   `spin` clip.
//! * `synthetic/rig64.glb`: a 64-joint branched rig with clips `a` (1.0 s) and
//!   `b` (1.5 s).
//! * `synthetic/rig64_packed.glb`: `rig64.glb` as gltfpack would write it:
//!   quantized vertex attributes (`KHR_mesh_quantization`) and every buffer
//!   view compressed (`EXT_meshopt_compression`, see `pack`).
//! * `synthetic/features.glb`: one small skin exercising eight influences per
//!   vertex, normalized integer weights and rotations, sparse accessors,
//!   CUBICSPLINE and STEP samplers, animated non-uniform scale, a `matrix`
//!   parent above the skeleton and a rigid (unskinned) attachment.
//! * `synthetic/influences.glb`: a 12-joint chain with a `bend` clip and
//!   one mesh of two columns: the first's vertices have 5 to 8 nonzero
//!   influences (`JOINTS_0/1`), the second's 9 to 12 (`JOINTS_0/1/2`, more
//!   than sinew keeps).
//! * `synthetic/morph.glb`: a two-joint column with three POSITION + NORMAL
//!   morph targets (one stored sparse), two primitives, two skinned nodes of
//!   the same mesh (one with its own `weights`), and clips animating the
//!   first node's weights with LINEAR (`linear`), STEP (`step`) and
//!   CUBICSPLINE (`cubic`) samplers, plus a clip that animates no weights
//!   (`still`).
//! * `synthetic/normal_map.glb`: a two-joint upright panel with tangents, a
//!   normal map of tilted stripes, a checker base colour texture read through
//!   `TEXCOORD_1`, vertex colours, metallic-roughness and occlusion textures
//!   (one packed image), an emissive texture and a `sway` clip; the textures are
//!   PNGs embedded in the binary chunk (written by `png`).
//! * `fbx/materials.fbx` and `fbx/materials_checker.png`: an ASCII FBX 7.4
//!   scene with materials (see `fbx`): a skinned panel with an external
//!   texture and a transparent colour, a rigid badge with an embedded texture
//!   on its second UV set and an embedded normal map, vertex colours and a
//!   `sway` clip.
//! * `fbx/maya_joints.fbx`, `fbx/max_biped.fbx`, `fbx/motionbuilder_take.fbx`:
//!   small animated skeletons as Maya, 3ds Max and MotionBuilder write them
//!   (see `fbx_exporters`): sparse cubic and TCB curves, Euler orders, pre- and
//!   post-rotations, scale compensation, a stepped curve, Z up in inches, keys
//!   outside the stack. The other files
//!   of `fbx/` are Blender conversions (`tools/fbx_export.py`) or written by
//!   hand.
//!
//! The humanoid's bind pose stands upright with the arms hanging at the sides,
//! palms facing the thighs; every joint's rest rotation is the identity, so
//! each joint frame is aligned with the model axes (+X is the character's
//! left).
//!
//! Running the program again writes byte-identical files: there is no clock
//! and no randomness. Only `std`, `glam`, `serde_json` and the `meshopt`
//! encoder are used (PNGs are written by hand, uncompressed), so the files do
//! not depend on the loader they are meant to test.

mod fbx;
mod fbx_exporters;
mod gltf;
mod humanoid;
mod mesh;
mod pack;
mod png;
mod skeleton;
mod synthetic;

use std::fs;
use std::path::{Path, PathBuf};

use crate::humanoid::humanoid;
use crate::pack::pack;
use crate::synthetic::chain256::chain256;
use crate::synthetic::fan::fan;
use crate::synthetic::features::features;
use crate::synthetic::influences::influences;
use crate::synthetic::morph::morph;
use crate::synthetic::normal_map::normal_map;
use crate::synthetic::rig64::rig64;

fn write(path: &Path, bytes: &[u8]) {
    fs::write(path, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    println!("{:>8} bytes  {}", bytes.len(), path.display());
}

fn main() {
    let out = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "assets".into()));
    let synthetic = out.join("synthetic");
    fs::create_dir_all(&synthetic)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", synthetic.display()));
    write(&out.join("humanoid.glb"), &humanoid());
    write(&synthetic.join("chain256.glb"), &chain256());
    write(&synthetic.join("fan.glb"), &fan());
    let rig64 = rig64();
    write(&synthetic.join("rig64.glb"), &rig64);
    write(&synthetic.join("rig64_packed.glb"), &pack(&rig64));
    write(&synthetic.join("features.glb"), &features());
    write(&synthetic.join("morph.glb"), &morph());
    write(&synthetic.join("influences.glb"), &influences());
    write(&synthetic.join("normal_map.glb"), &normal_map());
    let fbx = out.join("fbx");
    fs::create_dir_all(&fbx).unwrap_or_else(|e| panic!("cannot create {}: {e}", fbx.display()));
    let (scene, checker) = fbx::materials();
    write(&fbx.join("materials.fbx"), scene.as_bytes());
    write(&fbx.join("materials_checker.png"), &checker);
    write(
        &fbx.join("maya_joints.fbx"),
        fbx_exporters::maya_joints().as_bytes(),
    );
    write(
        &fbx.join("max_biped.fbx"),
        fbx_exporters::max_biped().as_bytes(),
    );
    let take = fbx_exporters::motionbuilder_take();
    write(&fbx.join("motionbuilder_take.fbx"), take.as_bytes());
}

//! Helpers shared by the integration tests: where the third-party assets are, and the
//! tolerances every comparison uses (stated once, here).
#![allow(dead_code)]

use std::path::PathBuf;

pub mod env;
pub mod rigs;
pub use env::{gpu_required, in_ci};

/// Matrix tolerance: `|a - b| <= MATRIX_TOLERANCE * max(1, |b|)`.
pub const MATRIX_TOLERANCE: f32 = 1e-4;

/// [`MATRIX_TOLERANCE`] for GPU against CPU on compressed clips: the same, since each rotation
/// rebuilds a component that stays at least 0.5, never the root of a difference of nearly equal
/// numbers that one rounding more or less of the squared norm would move.
pub const COMPRESSED_MATRIX_TOLERANCE: f32 = MATRIX_TOLERANCE;
/// Skinned positions and normals (GPU against CPU, CPU against a hand computation):
/// `|a - b| <= SKIN_TOLERANCE * max(1, |b|)`.
pub const SKIN_TOLERANCE: f32 = 1e-4;
/// IK against analytic solutions: positions (m), lengths and cosines.
pub const IK_TOLERANCE: f32 = 1e-4;
/// Quaternion tolerance: `1 - |dot(a, b)| <= QUAT_TOLERANCE`.
pub const QUAT_TOLERANCE: f32 = 1e-5;
/// How far (radians) the compressed decoder's rotation interpolation may stray from slerp
/// between frames up to 90° apart (its fit: 9e-6 rad there; normalized lerp: 1.6e-2).
pub const SLERP_FIT_TOLERANCE: f32 = 2e-5;
/// The same between frames 147° apart (its fit: 2.0e-3 rad there; normalized lerp: 7.4e-2).
pub const SLERP_FIT_WIDE_TOLERANCE: f32 = 3e-3;
/// Exact operations (no approximation involved).
pub const EXACT_TOLERANCE: f32 = 1e-5;
/// How far outside a GPU AABB a CPU-skinned vertex may lie.
pub const AABB_TOLERANCE: f32 = 1e-3;
/// How long a constructor given malformed data may run before the test calls it a hang: far
/// above what any case needs, so only a call that never returns reaches it.
pub const HANG_DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);
/// Morph weights, GPU against CPU and CPU against hand-computed values:
/// `|a - b| <= WEIGHT_TOLERANCE * max(1, |b|)`.
pub const WEIGHT_TOLERANCE: f32 = 1e-5;
/// f32 rounding added to a derived quantization bound (matrix products over positions of about a
/// metre, each rounding at 6e-8 relative).
pub const QUANTIZATION_SLACK: f32 = 1e-5;

/// How far a position may move when stored on a uniform grid of `bits`-bit integers spanning
/// `extent`: half a step, `extent / (2^bits - 1) / 2`, on each of the three axes, so
/// `sqrt(3) / 2` steps in length.
pub fn position_quantization_bound(extent: f32, bits: u32) -> f32 {
    let step = extent / ((1u64 << bits) - 1) as f32;
    0.5 * step * 3f32.sqrt()
}

/// How far one component of a unit quaternion may move through meshopt's quaternion filter at
/// `bits` bits, decoded into normalized 16-bit integers and renormalized. The three stored
/// components round to a grid of `1 / ((2^(bits-1) - 1) * sqrt(2))`, half a step `h` each; the
/// rebuilt largest component `w = sqrt(1 - Σc²)` moves by at most `Σ|c| h / w <= 3h`; the 16-bit
/// output rounds by `r = 1 / 65534`; renormalizing moves each component by at most the error's
/// length, `sqrt(3h² + 9h²) + 2r`. In all at most `7h + 3r`.
pub fn quaternion_filter_bound(bits: u32) -> f32 {
    let h = 0.5 / (((1u32 << (bits - 1)) - 1) as f32 * std::f32::consts::SQRT_2);
    let r = 1.0 / 65534.0;
    7.0 * h + 3.0 * r
}

/// Largest angle (radians) between a unit vector and its 8-bit octahedral encoding: the grid
/// step is 2/254 of the octahedron's half side; half a step on each of two axes, stretched by at
/// most π/2 onto the sphere, is `(π/2) * sqrt(2) / 254` ≈ 0.0087, and the 8-bit output components
/// (1/254 each, three of them) add at most `sqrt(3) / 254` ≈ 0.0068.
pub const OCTAHEDRAL_8BIT_ANGLE: f32 = 0.016;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared` next to the repository, if present. Absent in a user's own clone: tests that
/// need it print why and skip, except under CI (`CI=1` or `CI=true`), where its absence fails
/// the test.
pub fn shared() -> Option<PathBuf> {
    let dir = repo().join("../shared");
    if dir.join("gltf").is_dir() {
        return Some(dir);
    }
    if in_ci() {
        panic!(
            "CI is set but ../shared/gltf is missing: the conformance assets are required in CI"
        );
    }
    eprintln!("skipping: ../shared/gltf not found (third-party conformance assets)");
    None
}

/// `../shared/mocap` (real motion capture, see its README), or `None` with a message when it
/// is absent (a panic under CI).
pub fn shared_mocap() -> Option<PathBuf> {
    let dir = repo().join("../shared/mocap");
    if dir.join("08_02.glb").is_file() {
        return Some(dir);
    }
    if in_ci() {
        panic!("CI is set but ../shared/mocap is missing: the motion capture is required in CI");
    }
    eprintln!("skipping: ../shared/mocap not found (third-party motion capture)");
    None
}

/// Every `.gltf`/`.glb` file in `../shared/gltf`, sorted.
pub fn shared_assets() -> Vec<PathBuf> {
    let Some(dir) = shared() else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("gltf"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("gltf" | "glb")))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "../shared/gltf holds no glTF files");
    files
}

/// Every generated asset in `assets/` (including `assets/synthetic/`), sorted.
pub fn repo_assets() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [repo().join("assets"), repo().join("assets/synthetic")] {
        if let Ok(entries) = std::fs::read_dir(dir) {
            files.extend(entries.map(|e| e.unwrap().path()).filter(|p| {
                matches!(p.extension().and_then(|e| e.to_str()), Some("gltf" | "glb"))
            }));
        }
    }
    files.sort();
    files
}

/// The FBX copies of the generated rigs in `assets/fbx/`, sorted.
pub fn fbx_assets() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("assets/fbx"))
        .map(|entries| entries.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().and_then(|e| e.to_str()) == Some("fbx"));
    files.sort();
    files
}

/// Asserts two column-major matrices agree to `MATRIX_TOLERANCE`, printing both on failure.
pub fn assert_matrix_close(a: &[f32; 16], b: &[f32; 16], what: &str) {
    for i in 0..16 {
        let tol = MATRIX_TOLERANCE * b[i].abs().max(1.0);
        assert!(
            (a[i] - b[i]).abs() <= tol,
            "{what}: element {i} differs by {} (tolerance {tol})\n  got      {a:?}\n  expected {b:?}",
            (a[i] - b[i]).abs()
        );
    }
}

/// Asserts two quaternions (xyzw) describe the same rotation to `QUAT_TOLERANCE`.
pub fn assert_quat_close(a: glam::Quat, b: glam::Quat, what: &str) {
    let d = 1.0 - a.dot(b).abs();
    assert!(
        d <= QUAT_TOLERANCE,
        "{what}: 1 - |dot| = {d}\n  got      {a:?}\n  expected {b:?}"
    );
}

/// Asserts two vectors agree to `tol` per component.
pub fn assert_vec_close(a: &[f32], b: &[f32], tol: f32, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    for i in 0..a.len() {
        assert!(
            (a[i] - b[i]).abs() <= tol * b[i].abs().max(1.0),
            "{what}: component {i} differs by {}\n  got      {a:?}\n  expected {b:?}",
            (a[i] - b[i]).abs()
        );
    }
}

/// A small fixed-seed generator (SplitMix64), so every run tries the same inputs.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A headless GPU context for a test file's shared device, or `None` after printing why when no
/// adapter exists. Under `REQUIRE_GPU=1` a missing adapter fails instead, so GPU tests cannot
/// pass by skipping.
pub fn headless_gpu(what: &str) -> Option<sinew::GpuContext> {
    let required = gpu_required();
    match sinew::GpuContext::new_headless() {
        Ok(context) => Some(context),
        Err(e) => {
            assert!(!required, "REQUIRE_GPU=1 but no GPU adapter: {e}");
            eprintln!("skipping {what}: {e}");
            None
        }
    }
}

/// A crowd for comparing evaluations bit for bit: `count` instances of the shipped humanoid
/// and the synthetic 64-joint rig, interleaved (so the fast evaluator's groups of four hold
/// mixed and partial lanes), each with its own clips and times: cross-fades, masked overrides,
/// additive layers (masked and not), partial weights, rest poses, root-motion holds, rotated
/// and scaled worlds, and palette blocks with gaps in scrambled order. Returns the rigs, the
/// masks, the records and the palette length.
pub fn mixed_crowd(
    count: usize,
) -> (
    Vec<sinew::Rig>,
    Vec<sinew::JointMask>,
    Vec<sinew::InstanceRecord>,
    usize,
) {
    use sinew::{BlendMode, InstanceRecord, JointMask, Layer};
    let rig_of = |path: &str| {
        let asset = sinew::import_file(repo().join(path)).unwrap();
        sinew::bake_rigs(&asset).unwrap().remove(0)
    };
    let rigs = vec![
        rig_of("assets/humanoid.glb"),
        rig_of("assets/synthetic/rig64.glb"),
    ];
    let upper = JointMask::from_subtrees(&rigs[0].skeleton, &["Spine1"]).unwrap();
    let masks = vec![
        upper.inverted(),
        upper,
        JointMask::uniform(&rigs[0].skeleton, 0.5),
        JointMask::uniform(&rigs[1].skeleton, 0.3),
    ];
    let mut rng = Rng(0x5eed);
    let mut blocks = Vec::with_capacity(count);
    let mut offset = 0u32;
    for i in 0..count {
        let rig = usize::from(i % 5 == 3);
        blocks.push((offset, rig));
        offset += rigs[rig].joint_count() as u32 + (i % 3) as u32;
    }
    // Scramble which record gets which palette block.
    for i in (1..blocks.len()).rev() {
        blocks.swap(i, rng.below(i + 1));
    }
    let records = blocks
        .iter()
        .enumerate()
        .map(|(i, &(offset, rig))| {
            let clips = rigs[rig].clips.clip_count() as u32;
            let clip = |rng: &mut Rng| rng.below(clips as usize) as u32;
            let layer = |rng: &mut Rng, weight: f32, mask, mode| Layer {
                clip: clip(rng),
                time: rng.range(0.0, 2.0),
                weight,
                mask,
                mode,
            };
            let (own, mask) = if rig == 0 {
                (Some(rng.below(3) as u32), 0)
            } else {
                (Some(3), 3)
            };
            let layers = match i % 6 {
                0 => vec![],
                1 => vec![layer(&mut rng, 1.0, None, BlendMode::Override)],
                2 => vec![
                    layer(&mut rng, 1.0, None, BlendMode::Override),
                    layer(&mut rng, 0.35, None, BlendMode::Override),
                ],
                3 => vec![
                    layer(&mut rng, 1.0, None, BlendMode::Override),
                    layer(&mut rng, 1.0, own, BlendMode::Override),
                    layer(&mut rng, 0.6, None, BlendMode::Additive),
                ],
                4 => vec![
                    layer(&mut rng, 0.7, None, BlendMode::Override),
                    layer(&mut rng, 0.5, Some(mask), BlendMode::Additive),
                ],
                _ => vec![
                    layer(&mut rng, 1.0, None, BlendMode::Override),
                    layer(&mut rng, 0.4, None, BlendMode::Override),
                    layer(&mut rng, 1.0, own, BlendMode::Additive),
                    layer(&mut rng, 0.25, None, BlendMode::Additive),
                ],
            };
            let world = glam::Affine3A::from_scale_rotation_translation(
                glam::Vec3::splat(rng.range(0.8, 1.25)),
                glam::Quat::from_rotation_y(rng.range(-3.1, 3.1)),
                glam::Vec3::new(rng.range(-50.0, 50.0), 0.0, rng.range(-50.0, 50.0)),
            );
            let mut record = InstanceRecord::new(rig as u32, offset, &world, &layers).unwrap();
            if i % 7 == 2 {
                record.flags |= InstanceRecord::HOLD_ROOT_XZ | InstanceRecord::HOLD_ROOT_YAW;
            }
            record
        })
        .collect();
    (rigs, masks, records, offset as usize)
}

/// Runs `evaluate` (into a palette of `palette_len` identity entries and `boxes` empty boxes)
/// inside rayon thread pools of 1, 2, 3 and again 1 thread, and asserts that every run gives
/// the first one's palette and boxes bit for bit (`to_bits`), and that most of the palette and
/// every box were written.
pub fn assert_same_bits_for_any_thread_count(
    palette_len: usize,
    boxes: usize,
    mut evaluate: impl FnMut(&mut [sinew::Mat3x4Rows], &mut [sinew::Aabb]) + Send,
) {
    let bits = |palette: &[sinew::Mat3x4Rows], aabbs: &[sinew::Aabb]| -> (Vec<u32>, Vec<u32>) {
        let palette = palette
            .iter()
            .flat_map(|m| m.rows.iter().flatten().map(|x| x.to_bits()))
            .collect();
        let boxes = aabbs
            .iter()
            .flat_map(|b| b.min.iter().chain(&b.max).map(|x| x.to_bits()))
            .collect();
        (palette, boxes)
    };
    let mut runs = Vec::new();
    for threads in [1, 2, 3, 1] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        runs.push(pool.install(|| {
            assert_eq!(rayon::current_num_threads(), threads);
            let mut palette = vec![sinew::Mat3x4Rows::IDENTITY; palette_len];
            let mut aabbs = vec![sinew::Aabb::EMPTY; boxes];
            evaluate(&mut palette, &mut aabbs);
            bits(&palette, &aabbs)
        }));
    }
    let (palette, aabbs) = &runs[0];
    let identity = bits(&[sinew::Mat3x4Rows::IDENTITY], &[]).0;
    let posed = palette
        .chunks(12)
        .filter(|m| *m != identity.as_slice())
        .count();
    assert!(
        posed > palette_len / 2,
        "only {posed} of {palette_len} entries posed"
    );
    let empty = bits(&[], &[sinew::Aabb::EMPTY]).1;
    assert!(
        aabbs.chunks(8).all(|b| b != empty.as_slice()),
        "a box was left empty"
    );
    for (run, (p, b)) in runs.iter().enumerate().skip(1) {
        let first = p.iter().zip(palette).position(|(x, y)| x != y);
        assert_eq!(
            first, None,
            "run {run}: palette bits differ, first at float {first:?}"
        );
        let first = b.iter().zip(aabbs).position(|(x, y)| x != y);
        assert_eq!(
            first, None,
            "run {run}: box bits differ, first at float {first:?}"
        );
    }
}

/// Every input in the committed fuzz corpus of `target` (`tools/fuzz/corpus/<target>`: seeds
/// and inputs that once crashed), as (file name, bytes), sorted by name.
pub fn fuzz_corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = repo().join("tools/fuzz/corpus").join(target);
    let mut inputs: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    inputs.sort();
    inputs
}

/// Joints or weights of four influences widened to the eight slots a mesh stores (slots 5-8
/// zero).
pub fn eight<T: Copy + Default>(four: [T; 4]) -> [T; 8] {
    std::array::from_fn(|k| four.get(k).copied().unwrap_or_default())
}

/// How far an FBX conversion of a rig may pose away from its glTF original (joint positions,
/// skin matrices, skinned vertices), relative to the rig's size: the FBX file stores keys and
/// bind matrices in single precision, and its bones are re-oriented.
pub fn fbx_tolerance(size: f32) -> f32 {
    1e-4 * size.max(1.0)
}

/// How far a pose imported with [`sinew::ImportSettings`] may be from the correction applied
/// to the plain import's pose (matrix elements, skinned positions), relative to the rig's size.
pub fn settings_tolerance(size: f32) -> f32 {
    1e-4 * size.max(1.0)
}

/// The largest virtual-vertex error (metres, ACL's metric: vertices 3 cm from each joint on its
/// axes, model space) compressed clips may make on the rigs in `assets/` (the FBX rigs too,
/// whose hips turn about half a turn): the default budget.
pub const COMPRESSED_SHIPPED_ERROR_M: f32 = 0.1e-3;
/// The same on the conformance assets in `../shared/gltf`.
pub const COMPRESSED_CONFORMANCE_ERROR_M: f32 = 1e-3;
/// The largest difference of a morph weight between compressed and exact clips.
pub const COMPRESSED_WEIGHT_ERROR: f32 = 1e-3;
/// How many times smaller compressed clips must be than the exact key layout (the humanoid:
/// measured 7.36×).
pub const COMPRESSION_MIN_RATIO: f64 = 4.0;
/// The same for Fox (measured 4.64×; 3.80× with plain normalized lerp between frames, 2.21× on
/// one grid): its "Run" keys lie on 24 Hz, then after a gap on 24 Hz shifted by 1/120 s, so its
/// frames lie on uniform segments.
pub const FOX_COMPRESSION_MIN_RATIO: f64 = 4.0;

/// An error budget (metres) coarse enough that compressed root tracks decode measurably off
/// the exact keys, for tests that tell the two apart.
pub const COARSE_BUDGET_M: f32 = 0.05;
/// The least root-motion difference (metres) between exact and [`COARSE_BUDGET_M`] clips that
/// counts as telling them apart.
pub const COARSE_ROOT_OFFSET_M: f32 = 1e-3;

/// Hand-built compressed clips: 2 joints and one weight chunk, one clip of 1 s at 1 Hz (two
/// frames). Joint 0: translation quantized at 8 bits (ranges x 0..2, y -1..3, z 1..1),
/// rotation raw (frame 0 `x = 0.8`, frame 1 `x = -0.8`, both `w = 0.6` rebuilt: opposite
/// hemispheres), scale constant (2, 3, 4). Joint 1: translation and scale at rest, rotation
/// constant (0, 0.6, 0, 0.8). Weights: STEP at 4 bits in 0..1, frame 0 `q = (0, 15, 5, 10)`,
/// frame 1 all 15. Translation frame 0 `q = (0, 255, 128)`, frame 1 `q = (255, 0, 7)`.
pub struct HandCompressed {
    /// Clip records.
    pub clips: Vec<sinew::CompressedClip>,
    /// Channel codes.
    pub channels: Vec<sinew::ChannelCode>,
    /// Data words.
    pub data: Vec<u32>,
}

/// Writes the `bits` low bits of `value` at bit `bit` of `words`.
pub fn put_bits(words: &mut [u32], bit: usize, bits: u32, value: u32) {
    let (w, s) = (bit / 32, (bit % 32) as u32);
    words[w] |= value << s;
    if s + bits > 32 {
        words[w + 1] |= value >> (32 - s);
    }
}

/// See [`HandCompressed`].
pub fn hand_compressed() -> HandCompressed {
    use sinew::ChannelCode;
    let range = |min: u16, extent: u16| u32::from(min) | (u32::from(extent) << 16);
    // f16: 0 = 0x0000, 1 = 0x3C00, 2 = 0x4000, 4 = 0x4400, -1 = 0xBC00.
    let mut data: Vec<u32> = [2.0f32, 3.0, 4.0].iter().map(|v| v.to_bits()).collect();
    data.extend([range(0, 0x4000), range(0xBC00, 0x4400), range(0x3C00, 0)]);
    data.extend([range(0, 0x3C00); 4]);
    data.extend([0.0f32, 0.6, 0.0, 0.8].iter().map(|v| v.to_bits()));
    let frame_offset = data.len() as u32;
    let frame_words = 5;
    let mut frames = vec![0u32; 2 * frame_words];
    let (f0, f1) = frames.split_at_mut(frame_words);
    for (c, (a, b)) in [(0, 255), (255, 0), (128, 7)].into_iter().enumerate() {
        put_bits(f0, c * 8, 8, a);
        put_bits(f1, c * 8, 8, b);
    }
    for (c, (a, b)) in [(0.8f32, -0.8f32), (0.0, 0.0), (0.0, 0.0)]
        .into_iter()
        .enumerate()
    {
        put_bits(f0, 24 + c * 32, 32, a.to_bits());
        put_bits(f1, 24 + c * 32, 32, b.to_bits());
    }
    for (c, a) in [0, 15, 5, 10].into_iter().enumerate() {
        put_bits(f0, 120 + c * 4, 4, a);
        put_bits(f1, 120 + c * 4, 4, 15);
    }
    data.extend(frames);
    let channels = vec![
        ChannelCode::animated(8, false, 3, 0),
        ChannelCode::animated(32, false, 0, 24),
        ChannelCode::constant(0),
        ChannelCode::rest(),
        ChannelCode::constant(10),
        ChannelCode::rest(),
        ChannelCode::animated(4, true, 6, 120),
    ];
    let clips = vec![sinew::CompressedClip {
        rate: 1.0,
        duration: 1.0,
        frame_count: 2,
        channel_offset: 0,
        frame_offset,
        frame_words: frame_words as u32,
        segment_offset: 0,
        segment_count: 0,
    }];
    HandCompressed {
        clips,
        channels,
        data,
    }
}

impl HandCompressed {
    /// The checked compressed clips (budget 0.1 mm, error 0).
    pub fn build(self) -> Result<sinew::CompressedClips, sinew::CompressedError> {
        sinew::CompressedClips::from_parts(2, 1, self.clips, self.channels, self.data, 1e-4, 0.0)
    }
}

/// `rig` with a gap in the keys of clip `clip`: every key of its linear and step tracks
/// strictly between 30 % and 55 % of the clip's duration removed (rotations, translations and
/// scales alike, none left with fewer than two keys), so the keys run uniform, then one long
/// interval, then uniform again. Its compressed clips are dropped.
pub fn with_key_gap(rig: &sinew::Rig, clip: usize) -> sinew::Rig {
    let mut raw = rig.clips.to_raw_clips();
    let durations: Vec<f32> = rig.clips.clips().iter().map(|c| c.duration).collect();
    let (lo, hi) = (durations[clip] * 0.3, durations[clip] * 0.55);
    for track in &mut raw[clip].tracks {
        if track.interpolation == sinew::import::Interpolation::CubicSpline {
            continue;
        }
        let keep: Vec<bool> = track.times.iter().map(|&t| t <= lo || t >= hi).collect();
        if keep.iter().filter(|&&k| k).count() < 2 {
            continue;
        }
        let mut k = keep.iter();
        track.times.retain(|_| *k.next().unwrap());
        let mut k = keep.iter();
        track.values.retain(|_| *k.next().unwrap());
    }
    let mut out = rig.clone();
    out.clips =
        sinew::ClipLibrary::build_with_durations(&rig.skeleton, &raw, &durations, "gap").unwrap();
    out.compressed = None;
    out
}

/// [`hand_compressed`] on two segments: frames 0 and 1 at 1 Hz over `0..=1` s, then frames
/// 1 and 2 at 2 Hz over `1..=1.5` s (frame 2 a copy of frame 1), the clip lasting 1.5 s. The
/// table follows the frames.
pub fn hand_segmented() -> HandCompressed {
    let mut h = hand_compressed();
    let clip = &mut h.clips[0];
    let words = clip.frame_words as usize;
    let last = clip.frame_offset as usize + words;
    let copy: Vec<u32> = h.data[last..last + words].to_vec();
    h.data.extend(copy);
    clip.frame_count = 3;
    clip.duration = 1.5;
    clip.rate = 2.0;
    clip.segment_offset = h.data.len() as u32;
    clip.segment_count = 2;
    let segments = [
        sinew::ClipSegment {
            start: 0.0,
            rate: 1.0,
            first_frame: 0,
            intervals: 1,
        },
        sinew::ClipSegment {
            start: 1.0,
            rate: 2.0,
            first_frame: 1,
            intervals: 1,
        },
    ];
    h.data.extend_from_slice(bytemuck::cast_slice(&segments));
    h
}

const BASE64_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding (for data URIs in hand-written glTF files).
pub fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(BASE64_ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Runs the `sinew` binary with `args` and returns its stdout; panics with its stderr when it
/// fails.
pub fn run_sinew<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(|a| a.as_ref().into()).collect();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "sinew {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

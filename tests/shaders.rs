//! The assembled WGSL parses and validates with naga, and every struct shared with Rust has the
//! same member offsets and size on both sides. No GPU needed.

mod common;

use std::mem::{offset_of, size_of};

use sinew::gpu::layout::{FrameHeader, JointDesc, LibraryParams, RigDesc, RootFrameDesc};
use sinew::gpu::{
    EvaluateShape, compressed_shader_source, evaluate_shader_source, lod_compact_shader_source,
    previous_palette_shader_source,
};
use sinew::{Aabb, InstanceRecord, LayerRecord, Mat3x4Rows, TimeWrap, TrackDesc};

/// Both evaluate shapes: the narrow one every device runs and the wide one.
const SHAPES: [EvaluateShape; 2] = [EvaluateShape::NARROW, EvaluateShape::WIDE];

fn parse() -> naga::Module {
    parse_source(&evaluate_shader_source(EvaluateShape::NARROW))
}

fn parse_source(source: &str) -> naga::Module {
    naga::front::wgsl::parse_str(source).unwrap_or_else(|e| panic!("{}", e.emit_to_string(source)))
}

fn validate_source(module: &naga::Module, source: &str) -> naga::valid::ModuleInfo {
    validate_with(module, source, naga::valid::Capabilities::empty())
}

fn validate_with(
    module: &naga::Module,
    source: &str,
    capabilities: naga::valid::Capabilities,
) -> naga::valid::ModuleInfo {
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), capabilities)
        .validate(module)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(source)))
}

#[test]
fn evaluate_module_parses_and_validates() {
    for shape in SHAPES {
        let source = evaluate_shader_source(shape);
        let module = parse_source(&source);
        validate_source(&module, &source);
        let entry: Vec<&str> = module
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(entry, ["evaluate"], "{shape:?}");
    }
}

/// The slot-list compaction of indirect frames: both entry points validate, and the kernel's
/// workgroup size is the one the host dispatches by.
#[test]
fn lod_compact_module_parses_and_validates() {
    for shape in SHAPES {
        lod_compact_module_of(shape);
    }
}

fn lod_compact_module_of(shape: EvaluateShape) {
    let source = lod_compact_shader_source(shape);
    let module = naga::front::wgsl::parse_str(&source)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&source)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&source)));
    let entries: Vec<(&str, [u32; 3])> = module
        .entry_points
        .iter()
        .map(|e| (e.name.as_str(), e.workgroup_size))
        .collect();
    let size = sinew::gpu::LOD_COMPACT_WORKGROUP_SIZE;
    assert_eq!(
        entries,
        [("lod_compact", [size, 1, 1]), ("lod_finalize", [1, 1, 1])]
    );
}

/// The modules keeping the previous palette validate and bind it in group 2 (the previous
/// palette, then the stamps), with the two storage buffers beyond wgpu's default eight that
/// `PREVIOUS_PALETTE_STORAGE_BUFFERS` states; the others keep nothing and bind no group 2.
#[test]
fn previous_palette_modules_validate_and_bind_group_two() {
    for compressed in [false, true] {
        let source = previous_palette_shader_source(EvaluateShape::NARROW, compressed);
        assert!(source.contains("// ---- wgsl/previous_palette.wgsl"));
        let module = parse_source(&source);
        validate_with(
            &module,
            &source,
            naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32,
        );
        let mut group2 = Vec::new();
        let mut storage = 0;
        for (_, v) in module.global_variables.iter() {
            if matches!(v.space, naga::AddressSpace::Storage { .. }) {
                storage += 1;
            }
            if let Some(b) = &v.binding
                && b.group == 2
            {
                group2.push((b.binding, v.name.clone().unwrap_or_default()));
            }
        }
        group2.sort();
        assert_eq!(
            group2,
            [(0, "previous_palette".into()), (1, "evaluated_at".into())]
        );
        assert_eq!(storage, sinew::gpu::PREVIOUS_PALETTE_STORAGE_BUFFERS);
    }
    for source in [
        evaluate_shader_source(EvaluateShape::NARROW),
        compressed_shader_source(EvaluateShape::NARROW),
    ] {
        assert!(!source.contains("previous_palette: array"));
        assert!(source.contains("fn keep_previous("));
    }
}

#[test]
fn compressed_module_parses_validates_and_binds_clip_words_in_the_track_slot() {
    let source = compressed_shader_source(EvaluateShape::NARROW);
    assert!(!source.contains("// ---- wgsl/sample.wgsl"));
    let module = parse_source(&source);
    // `unpack2x16float` (the f16 ranges): core WebGPU, and every native backend of wgpu
    // (`DownlevelFlags::SHADER_F16_IN_F32`).
    validate_with(
        &module,
        &source,
        naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32,
    );
    let binding = |m: &naga::Module, name: &str| {
        m.global_variables
            .iter()
            .find(|(_, v)| v.name.as_deref() == Some(name))
            .and_then(|(_, v)| v.binding)
            .map(|b| (b.group, b.binding))
    };
    assert_eq!(binding(&module, "clip_words"), Some((0, 3)));
    assert_eq!(binding(&module, "tracks"), None);
    assert_eq!(binding(&parse(), "tracks"), Some((0, 3)));
    let storage = |m: &naga::Module| {
        m.global_variables
            .iter()
            .filter(|(_, v)| matches!(v.space, naga::AddressSpace::Storage { .. }))
            .count()
    };
    assert_eq!(storage(&module), storage(&parse()));
    let constant = |name: &str| u32_constant(&module, name);
    use sinew::{ChannelCode, CompressedClip};
    assert_eq!(
        constant("CLIP_DESC_WORDS") as usize,
        sinew::gpu::CLIP_DESC_WORDS
    );
    assert_eq!(
        constant("CLIP_DESC_WORDS") as usize * 4,
        size_of::<CompressedClip>()
    );
    assert_eq!(
        constant("CHANNEL_CODE_WORDS") as usize * 4,
        size_of::<ChannelCode>()
    );
    assert_eq!(constant("CODE_RATE_BITS"), ChannelCode::BITS_MASK);
    assert_eq!(constant("CODE_STEP"), ChannelCode::STEP);
    assert_eq!(constant("CODE_REST"), ChannelCode::REST);
    assert_eq!(constant("CODE_INDEX_SHIFT"), ChannelCode::INDEX_SHIFT);
    assert_eq!(constant("CODE_FIRST_BIT_MASK"), ChannelCode::FIRST_BIT_MASK);
    assert_eq!(constant("CODE_LAYOUT_SHIFT"), ChannelCode::LAYOUT_SHIFT);
    assert_eq!(
        constant("CODE_REDUCTION_SHIFT"),
        ChannelCode::REDUCTION_SHIFT
    );
    assert_eq!(constant("CODE_REDUCTION_MASK"), ChannelCode::MAX_REDUCTION);
    assert_eq!(constant("LAYOUT_DROP_X"), ChannelCode::DROP_X);
    assert_eq!(constant("LAYOUT_DROP_Y"), ChannelCode::DROP_Y);
    assert_eq!(constant("LAYOUT_DROP_Z"), ChannelCode::DROP_Z);
    assert_eq!(constant("LAYOUT_FULL"), ChannelCode::FULL_ROTATION);
    assert_eq!(constant("RATE_RAW"), ChannelCode::RAW_BITS);
}

#[test]
fn evaluate_kernel_fits_the_limits_of_its_shape() {
    // The narrow shape fits wgpu's defaults; the wide one the workgroup memory it asks for.
    assert_eq!(
        EvaluateShape::NARROW.workgroup_bytes(),
        wgpu_default_limits().0
    );
    assert_eq!(
        EvaluateShape::for_limits(&wgpu::Limits::default()),
        EvaluateShape::NARROW
    );
    let wide = wgpu::Limits {
        max_compute_workgroup_storage_size: EvaluateShape::WIDE_WORKGROUP_BYTES,
        ..wgpu::Limits::default()
    };
    assert_eq!(EvaluateShape::for_limits(&wide), EvaluateShape::WIDE);
    for shape in SHAPES {
        for source in [
            evaluate_shader_source(shape),
            compressed_shader_source(shape),
        ] {
            kernel_fits(&source, shape);
        }
    }
}

/// The kernel of `source` runs in one workgroup of `shape`'s memory and wgpu's default
/// invocation and storage buffer limits.
fn kernel_fits(source: &str, shape: EvaluateShape) {
    let module = parse_source(source);
    let info = validate_with(
        &module,
        source,
        naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32,
    );
    let ep = &module.entry_points[0];
    let invocations: u32 = ep.workgroup_size.iter().product();
    assert_eq!(
        ep.workgroup_size,
        [sinew::gpu::EVALUATE_WORKGROUP_SIZE, 1, 1]
    );
    assert!(
        invocations <= 256,
        "{invocations} invocations per workgroup"
    );
    let defaults = wgpu_default_limits();
    let mut workgroup_bytes = 0;
    let mut storage_buffers = 0;
    for (_, var) in module.global_variables.iter() {
        match var.space {
            naga::AddressSpace::WorkGroup => {
                workgroup_bytes += module.types[var.ty].inner.size(module.to_ctx());
            }
            naga::AddressSpace::Storage { .. } => storage_buffers += 1,
            _ => {}
        }
    }
    assert!(
        workgroup_bytes <= shape.workgroup_bytes(),
        "{shape:?}: {workgroup_bytes} bytes of workgroup memory"
    );
    assert!(
        storage_buffers <= defaults.1,
        "{storage_buffers} storage buffers"
    );
    let _ = info;
}

/// The initializer of constant `name` of module `m`.
fn constant_init<'a>(m: &'a naga::Module, name: &str) -> &'a naga::Expression {
    let (_, c) = m
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("constant {name} missing"));
    &m.global_expressions[c.init]
}

/// The value of `u32` constant `name` of module `m`.
fn u32_constant(m: &naga::Module, name: &str) -> u32 {
    match constant_init(m, name) {
        naga::Expression::Literal(naga::Literal::U32(v)) => *v,
        e => panic!("{name} = {e:?}"),
    }
}

/// (workgroup storage bytes, storage buffers per stage) of wgpu's default limits.
fn wgpu_default_limits() -> (u32, u32) {
    (16384, 8)
}

/// Member offsets and span of struct `name` in the module.
fn reflect(module: &naga::Module, name: &str) -> (Vec<(String, u32)>, u32) {
    for (_, ty) in module.types.iter() {
        if ty.name.as_deref() == Some(name)
            && let naga::TypeInner::Struct { members, span } = &ty.inner
        {
            return (
                members
                    .iter()
                    .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                    .collect(),
                *span,
            );
        }
    }
    panic!("struct {name} not found in the WGSL module");
}

fn check(module: &naga::Module, name: &str, size: usize, offsets: &[(&str, usize)]) {
    let (members, span) = reflect(module, name);
    assert_eq!(
        span as usize, size,
        "{name}: WGSL size {span}, Rust size {size}"
    );
    let rust: Vec<(String, u32)> = offsets
        .iter()
        .map(|&(n, o)| (n.to_string(), o as u32))
        .collect();
    assert_eq!(
        members, rust,
        "{name}: member offsets (WGSL left, Rust right)"
    );
}

macro_rules! layout {
    ($module:expr, $ty:ty, $name:literal, [$($field:ident),* $(,)?]) => {
        check(
            $module,
            $name,
            size_of::<$ty>(),
            &[$((stringify!($field), offset_of!($ty, $field))),*],
        )
    };
}

#[test]
fn shared_structs_match_rust_layouts() {
    let m = &parse();
    layout!(m, Mat3x4Rows, "Mat3x4Rows", [rows]);
    layout!(
        m,
        LayerRecord,
        "LayerRecord",
        [
            clip,
            time,
            weight,
            flags,
            anchor,
            rate,
            period,
            weight_from,
            fade_start,
            fade_rate,
            share_sum,
            rate_gain
        ]
    );
    layout!(
        m,
        InstanceRecord,
        "InstanceRecord",
        [rig, palette_offset, layer_count, flags, world, layers]
    );
    layout!(
        m,
        TrackDesc,
        "TrackDesc",
        [time_offset, value_offset, key_count, interpolation]
    );
    layout!(m, Aabb, "Aabb", [min, max]);
    layout!(
        m,
        FrameHeader,
        "FrameHeader",
        [
            instance_count,
            grid_width,
            palette_base,
            first_instance,
            time,
            prev_time,
            frame,
            lod_flags,
            slot_base,
            list_base,
            pad1,
            pad2,
            lod_eye,
            lod_distances,
            lod_every
        ]
    );
    layout!(
        m,
        RigDesc,
        "RigDesc",
        [
            joint_offset,
            joint_count,
            level_count,
            clip_count,
            track_offset,
            time_offset,
            value_offset,
            frame_offset,
            weight_chunks,
            weight_track_offset,
            morph_joint_offset,
            morph_default_offset,
            ik_offset,
            ik_count,
            lod_sampled,
            pad1
        ]
    );
    layout!(
        m,
        RootFrameDesc,
        "RootFrame",
        [to_model, from_model, rotation]
    );
    layout!(
        m,
        JointDesc,
        "JointDesc",
        [
            rest_translation,
            parent,
            rest_rotation,
            rest_scale,
            has_bounds,
            inverse_bind,
            bounds_min,
            level_start,
            bounds_max,
            pad
        ]
    );
    layout!(
        m,
        LibraryParams,
        "LibraryParams",
        [rig_count, mask_count, mask_offset, retarget_offset]
    );
}

#[test]
fn array_strides_match_rust_sizes() {
    let m = &parse();
    // Runtime arrays the host writes: their element stride is the Rust size.
    for (_, ty) in m.types.iter() {
        if let naga::TypeInner::Array { base, stride, .. } = ty.inner {
            let base_name = m.types[base].name.as_deref();
            let expected = match base_name {
                Some("InstanceRecord") => size_of::<InstanceRecord>(),
                Some("LayerRecord") => size_of::<LayerRecord>(),
                Some("TrackDesc") => size_of::<TrackDesc>(),
                Some("Mat3x4Rows") => size_of::<Mat3x4Rows>(),
                Some("Aabb") => size_of::<Aabb>(),
                Some("RigDesc") => size_of::<RigDesc>(),
                Some("JointDesc") => size_of::<JointDesc>(),
                _ => continue,
            };
            assert_eq!(stride as usize, expected, "array of {base_name:?}");
        }
    }
}

#[test]
fn constants_match_rust() {
    let m = &parse();
    let constant = |name: &str| u32_constant(m, name);
    let (_, slerp) = m
        .constants
        .iter()
        .find(|(_, c)| c.name.as_deref() == Some("SLERP_SERIES_MIN_COS"))
        .expect("SLERP_SERIES_MIN_COS");
    assert_eq!(
        m.global_expressions[slerp.init],
        naga::Expression::Literal(naga::Literal::F32(sinew::math::SLERP_SERIES_MIN_COS))
    );
    let float = |name: &str| -> f32 {
        match constant_init(m, name) {
            naga::Expression::Literal(naga::Literal::F32(v)) => *v,
            e => panic!("{name} = {e:?}"),
        }
    };
    assert_eq!(constant("IK_VEC4S") as usize, sinew::ik::IK_VEC4S);
    assert_eq!(constant("IK_KIND_TWO_BONE"), sinew::ik::IK_KIND_TWO_BONE);
    assert_eq!(constant("IK_KIND_AIM"), sinew::ik::IK_KIND_AIM);
    assert_eq!(float("POLE_POSITION"), sinew::ik::POLE_POSITION);
    assert_eq!(float("POLE_DIRECTION"), sinew::ik::POLE_DIRECTION);
    assert_eq!(float("IK_EPSILON"), sinew::cpu::IK_EPSILON);
    assert_eq!(constant("MAX_JOINTS") as usize, sinew::MAX_JOINTS);
    assert_eq!(constant("MAX_LAYERS") as usize, sinew::MAX_LAYERS);
    assert_eq!(
        constant("ROOT_FRAME_VEC4S") as usize,
        sinew::gpu::layout::ROOT_FRAME_VEC4S
    );
    assert_eq!(constant("NO_PARENT"), u32::from(sinew::NO_PARENT));
    assert_eq!(constant("LAYER_ADDITIVE"), LayerRecord::ADDITIVE);
    assert_eq!(constant("LAYER_MASK"), LayerRecord::MASK);
    assert_eq!(constant("LAYER_WRAP"), LayerRecord::WRAP);
    assert_eq!(constant("LAYER_WRAP_SHIFT"), LayerRecord::WRAP_SHIFT);
    assert_eq!(constant("LAYER_MIRROR"), LayerRecord::MIRROR);
    assert_eq!(constant("LAYER_CLIP"), LayerRecord::CLIP);
    assert_eq!(constant("LAYER_MAP_SHIFT"), LayerRecord::MAP_SHIFT);
    assert_eq!(
        constant("RETARGET_ENTRY_VEC4S") as usize,
        sinew::gpu::RETARGET_ENTRY_VEC4S
    );
    assert_eq!(constant("RETARGET_REFLECT"), sinew::gpu::RETARGET_REFLECT);
    assert_eq!(
        constant("RETARGET_SOURCE_TRANSLATION"),
        sinew::gpu::RETARGET_SOURCE_TRANSLATION
    );
    assert_eq!(
        constant("RETARGET_SOURCE_SCALE"),
        sinew::gpu::RETARGET_SOURCE_SCALE
    );
    assert_eq!(
        constant("RETARGET_NO_SOURCE"),
        sinew::gpu::RETARGET_NO_SOURCE
    );
    for wrap in [
        TimeWrap::None,
        TimeWrap::Loop,
        TimeWrap::Clamp,
        TimeWrap::PingPong,
    ] {
        let name = match wrap {
            TimeWrap::None => "TIME_WRAP_NONE",
            TimeWrap::Loop => "TIME_WRAP_LOOP",
            TimeWrap::Clamp => "TIME_WRAP_CLAMP",
            TimeWrap::PingPong => "TIME_WRAP_PING_PONG",
        };
        assert_eq!(
            constant(name) << LayerRecord::WRAP_SHIFT,
            wrap.bits(),
            "{name}"
        );
    }
    assert_eq!(constant("INERTIAL"), InstanceRecord::INERTIAL);
    assert_eq!(
        constant("INERTIAL_JOINT_VEC4S"),
        sinew::INERTIAL_JOINT_VEC4S
    );
    assert_eq!(
        constant("INERTIAL_HEADER_VEC4S"),
        sinew::INERTIAL_HEADER_VEC4S
    );
    assert_eq!(
        float("INERTIAL_VELOCITY_STEP"),
        sinew::INERTIAL_VELOCITY_STEP
    );
    assert_eq!(float("INERTIAL_TAG"), sinew::INERTIAL_TAG);
    assert_eq!(constant("ROOT_JOINT"), InstanceRecord::ROOT_JOINT);
    assert_eq!(constant("HOLD_ROOT_XZ"), InstanceRecord::HOLD_ROOT_XZ);
    assert_eq!(constant("HOLD_ROOT_XYZ"), InstanceRecord::HOLD_ROOT_XYZ);
    assert_eq!(constant("HOLD_ROOT_YAW"), InstanceRecord::HOLD_ROOT_YAW);
    assert_eq!(constant("GPU_ROOT_MOTION"), InstanceRecord::GPU_ROOT_MOTION);
    assert_eq!(constant("BASE_LAYERS"), InstanceRecord::BASE_LAYERS);
    assert_eq!(
        constant("BASE_LAYERS_SHIFT"),
        InstanceRecord::BASE_LAYERS_SHIFT
    );
    assert_eq!(constant("WORLD_PLACED"), InstanceRecord::WORLD_PLACED);
    assert_eq!(constant("UPDATE_EVERY"), InstanceRecord::UPDATE_EVERY);
    assert_eq!(
        constant("UPDATE_EVERY_SHIFT"),
        InstanceRecord::UPDATE_EVERY_SHIFT
    );
    assert_eq!(constant("UPDATE_PHASE"), InstanceRecord::UPDATE_PHASE);
    assert_eq!(
        constant("UPDATE_PHASE_SHIFT"),
        InstanceRecord::UPDATE_PHASE_SHIFT
    );
    assert_eq!(constant("LOD_LEVEL"), InstanceRecord::LOD_LEVEL);
    assert_eq!(constant("LOD_LEVEL_SHIFT"), InstanceRecord::LOD_LEVEL_SHIFT);
    assert_eq!(constant("FROZEN"), InstanceRecord::FROZEN);
    assert_eq!(constant("SKIP_CULLED"), InstanceRecord::SKIP_CULLED);
    assert_eq!(constant("LOD_BITS"), InstanceRecord::LOD_BITS);
    assert_eq!(constant("CULLED_REFRESH"), sinew::lod::CULLED_REFRESH);
    use sinew::gpu::layout::FrameHeader as H;
    assert_eq!(constant("HEADER_EVALUATE_ALL"), H::EVALUATE_ALL);
    assert_eq!(constant("HEADER_LOD_POLICY"), H::LOD_POLICY);
    assert_eq!(
        constant("HEADER_POLICY_SKIPS_CULLED"),
        H::POLICY_SKIPS_CULLED
    );
    assert_eq!(constant("HEADER_INDIRECT"), H::INDIRECT);
    assert_eq!(
        InstanceRecord::BASE_LAYERS >> InstanceRecord::BASE_LAYERS_SHIFT,
        (sinew::MAX_LAYERS as u32).next_power_of_two() * 2 - 1,
        "BASE_LAYERS holds 0..=MAX_LAYERS"
    );
    let root_bits = [
        InstanceRecord::ROOT_JOINT,
        InstanceRecord::HOLD_ROOT_XZ,
        InstanceRecord::HOLD_ROOT_XYZ,
        InstanceRecord::HOLD_ROOT_YAW,
        InstanceRecord::GPU_ROOT_MOTION,
        InstanceRecord::BASE_LAYERS,
        InstanceRecord::WORLD_PLACED,
    ];
    for (i, a) in root_bits.iter().enumerate() {
        for b in &root_bits[i + 1..] {
            assert_eq!(a & b, 0, "flag bits {a:#x} and {b:#x} overlap");
        }
    }
    assert_eq!(
        constant("INTERPOLATION_STEP"),
        sinew::Interpolation::Step as u32
    );
    assert_eq!(
        constant("INTERPOLATION_LINEAR"),
        sinew::Interpolation::Linear as u32
    );
    assert_eq!(
        constant("INTERPOLATION_CUBIC"),
        sinew::Interpolation::CubicSpline as u32
    );
    assert_eq!(
        constant("WORKGROUP_SIZE"),
        sinew::gpu::EVALUATE_WORKGROUP_SIZE
    );
    for shape in SHAPES {
        let m = &parse_source(&evaluate_shader_source(shape));
        let constant = |name: &str| u32_constant(m, name);
        assert_eq!(constant("GROUP_INSTANCES"), shape.group_instances());
        assert_eq!(constant("PASS_JOINTS"), shape.pass_joints());
    }
}

/// CI systems spell their switches `1` or `true`: both turn `CI` and `REQUIRE_GPU` on.
#[test]
fn environment_switches_accept_1_and_true() {
    for on in ["1", "true", "TRUE", "True", " true "] {
        assert!(
            common::env::switch_is_on(Some(on)),
            "{on:?} should turn a switch on"
        );
    }
    for off in ["0", "false", "", "yes"] {
        assert!(
            !common::env::switch_is_on(Some(off)),
            "{off:?} should leave a switch off"
        );
    }
    assert!(!common::env::switch_is_on(None));
}

/// The `[dependencies]` and `[dev-dependencies]` lines of Cargo.toml: `(name, requirement
/// line)`.
fn manifest_dependencies() -> Vec<(String, String)> {
    let manifest = std::fs::read_to_string(common::repo().join("Cargo.toml")).unwrap();
    let mut section = String::new();
    let mut deps = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_string();
        } else if (section == "[dependencies]" || section == "[dev-dependencies]")
            && !line.starts_with('#')
            && let Some((name, spec)) = line.split_once('=')
        {
            deps.push((name.trim().to_string(), spec.trim().to_string()));
        }
    }
    assert!(deps.len() > 5, "Cargo.toml lists no dependencies?");
    deps
}

/// Hosts build sinew beside their own wgpu and glam: requirements are carets, never exact pins.
#[test]
fn dependencies_use_caret_requirements() {
    for (name, spec) in manifest_dependencies() {
        let version = spec
            .split("version")
            .nth(1)
            .map_or(spec.as_str(), |rest| rest.trim_start_matches([' ', '=']));
        let requirement = version.trim_start_matches(['"', '{', ' ']);
        assert!(
            !requirement.starts_with(['=', '<', '~']),
            "dependency {name} is pinned ({spec}); use a caret requirement"
        );
    }
}

/// wgpu is built with every native backend, so Windows (DX12) and Apple (Metal) get an adapter.
#[test]
fn wgpu_builds_every_native_backend() {
    let (_, spec) = manifest_dependencies()
        .into_iter()
        .find(|(name, _)| name == "wgpu")
        .unwrap();
    for backend in ["vulkan", "metal", "dx12", "gles"] {
        assert!(
            spec.contains(&format!("\"{backend}\"")),
            "wgpu is built without the {backend} backend: {spec}"
        );
    }
}

//! `fbx/maya_joints.fbx`, `fbx/max_biped.fbx` and `fbx/motionbuilder_take.fbx`: small ASCII
//! FBX 7.4 skeletons animated as Maya, 3ds Max and MotionBuilder write them, written as text.
//!
//! - Maya: Y up, centimetres, 24 fps, a stack from frame 1 with keys from frame 0; sparse
//!   auto-tangent cubic curves, a TCB curve, joint orients (pre-rotations), a post-rotation,
//!   rotation orders ZXY and ZYX, an animated non-uniform scale with a translated child and a
//!   segment-scale-compensating child (`InheritType` 2), and a stepped (constant) curve.
//! - 3ds Max: Z up, inches, 30 fps; TCB rotation curves and auto-tangent translation.
//! - MotionBuilder: Y up, centimetres, 30 fps; a take whose keys run past its stack's end,
//!   with a key every few frames and a rotation order YXZ.

use std::fmt::Write;

use crate::fbx::{array, strings};

/// FBX time units per second.
const TICKS: i64 = 46_186_158_000;
/// `KeyAttrFlags` of a cubic key with automatic tangents.
const CUBIC_AUTO: u32 = 0x8 | 0x100;
/// `KeyAttrFlags` of a cubic key with TCB tangents (tension, continuity, bias in its data).
const CUBIC_TCB: u32 = 0x8 | 0x200;
/// `KeyAttrFlags` of a constant key (the value holds until the next key).
const CONSTANT: u32 = 0x2;

/// A `LimbNode` model: name, parent (an earlier joint), translation and its other
/// `Properties70` lines (its rest rotation is none, its scale one).
struct Joint {
    name: &'static str,
    parent: Option<usize>,
    translation: [f64; 3],
    properties: Vec<String>,
}

fn joint(
    name: &'static str,
    parent: Option<usize>,
    translation: [f64; 3],
    properties: Vec<String>,
) -> Joint {
    Joint {
        name,
        parent,
        translation,
        properties,
    }
}

/// An animated component of a joint's property: keys as (frame, value).
struct Curve {
    joint: usize,
    property: &'static str,
    axis: usize,
    keys: Vec<(i64, f64)>,
    flags: u32,
    /// The four `KeyAttrDataFloat` values every key shares.
    data: [f64; 4],
}

/// How a tool sets up its file.
struct Exporter {
    comment: &'static str,
    /// `UpAxis`, `UpAxisSign`, `FrontAxis`, `FrontAxisSign`, `CoordAxis`, `CoordAxisSign`.
    axes: [i32; 6],
    /// Centimetres per file unit.
    unit: f64,
    /// FBX's `TimeMode` and the frame rate it names.
    time_mode: u32,
    fps: i64,
    stack: &'static str,
    /// The stack's first and last frame.
    frames: (i64, i64),
}

/// A vector property's `P:` line (`Lcl …` animatable, others `Vector3D`).
fn vector(name: &str, v: [f64; 3]) -> String {
    let values = strings(v).join(",");
    if name.starts_with("Lcl ") {
        format!("P: \"{name}\", \"{name}\", \"\", \"A\",{values}")
    } else {
        format!("P: \"{name}\", \"Vector3D\", \"Vector\", \"\",{values}")
    }
}

/// An `enum` or `bool` property's `P:` line.
fn integer(name: &str, kind: &str, value: i64) -> String {
    format!("P: \"{name}\", \"{kind}\", \"\", \"\",{value}")
}

fn write_scene(exporter: &Exporter, joints: &[Joint], curves: &[Curve]) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "; FBX 7.4.0 project file\n; Written by sinew's generate_assets: {}\n\n\
         FBXHeaderExtension:  {{\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}}\n\
         GlobalSettings:  {{\n\tVersion: 1000\n\tProperties70:  {{\n",
        exporter.comment
    );
    let names = [
        "UpAxis",
        "UpAxisSign",
        "FrontAxis",
        "FrontAxisSign",
        "CoordAxis",
        "CoordAxisSign",
    ];
    for (name, value) in names.iter().zip(exporter.axes) {
        let _ = writeln!(out, "\t\tP: \"{name}\", \"int\", \"Integer\", \"\",{value}");
    }
    let tick = |frame: i64| frame * TICKS / exporter.fps;
    let _ = write!(
        out,
        "\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",{}\n\t\tP: \"TimeMode\", \
         \"enum\", \"\", \"\",{}\n\t\tP: \"TimeSpanStart\", \"KTime\", \"Time\", \"\",{}\n\t\tP: \
         \"TimeSpanStop\", \"KTime\", \"Time\", \"\",{}\n\t}}\n}}\nObjects:  {{\n",
        exporter.unit,
        exporter.time_mode,
        tick(exporter.frames.0),
        tick(exporter.frames.1)
    );
    let joint_id = |j: usize| 1000 + j as u64;
    for (j, joint) in joints.iter().enumerate() {
        let _ = writeln!(
            out,
            "\tModel: {}, \"Model::{}\", \"LimbNode\" {{\n\t\tVersion: 232\n\t\tProperties70:  {{",
            joint_id(j),
            joint.name
        );
        let _ = writeln!(out, "\t\t\t{}", vector(T, joint.translation));
        for p in &joint.properties {
            let _ = writeln!(out, "\t\t\t{p}");
        }
        let _ = writeln!(out, "\t\t}}\n\t}}");
    }
    let (stack, layer) = (6000_u64, 6001_u64);
    let _ = writeln!(
        out,
        "\tAnimationStack: {stack}, \"AnimStack::{}\", \"\" {{\n\t\tProperties70:  {{\n\t\t\tP: \
         \"LocalStart\", \"KTime\", \"Time\", \"\",{}\n\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \
         \"\",{}\n\t\t}}\n\t}}\n\tAnimationLayer: {layer}, \"AnimLayer::BaseLayer\", \"\" {{\n\t}}",
        exporter.stack,
        tick(exporter.frames.0),
        tick(exporter.frames.1)
    );
    // One curve node per animated joint property, in the order curves first name them.
    let mut nodes: Vec<(usize, &str)> = Vec::new();
    for c in curves {
        if !nodes.contains(&(c.joint, c.property)) {
            nodes.push((c.joint, c.property));
        }
    }
    let node_id = |n: usize| 7000 + n as u64;
    for (n, &(joint, property)) in nodes.iter().enumerate() {
        // Components without a curve keep the joint's rest value.
        let (short, rest) = match property {
            T => ("T", joints[joint].translation),
            R => ("R", [0.0; 3]),
            _ => ("S", [1.0; 3]),
        };
        let _ = writeln!(
            out,
            "\tAnimationCurveNode: {}, \"AnimCurveNode::{short}\", \"\" {{\n\t\tProperties70:  {{",
            node_id(n)
        );
        for (axis, rest) in ["X", "Y", "Z"].iter().zip(rest) {
            let _ = writeln!(out, "\t\t\tP: \"d|{axis}\", \"Number\", \"\", \"A\",{rest}");
        }
        let _ = writeln!(out, "\t\t}}\n\t}}");
    }
    let curve_id = |c: usize| 8000 + c as u64;
    for (c, curve) in curves.iter().enumerate() {
        let _ = writeln!(
            out,
            "\tAnimationCurve: {}, \"AnimCurve::\", \"\" {{\n\t\tDefault: 0\n\t\tKeyVer: 4009",
            curve_id(c)
        );
        let times = curve.keys.iter().map(|k| tick(k.0));
        array(&mut out, "\t\t", "KeyTime", &strings(times));
        array(
            &mut out,
            "\t\t",
            "KeyValueFloat",
            &strings(curve.keys.iter().map(|k| k.1)),
        );
        array(&mut out, "\t\t", "KeyAttrFlags", &strings([curve.flags]));
        array(&mut out, "\t\t", "KeyAttrDataFloat", &strings(curve.data));
        array(
            &mut out,
            "\t\t",
            "KeyAttrRefCount",
            &strings([curve.keys.len()]),
        );
        let _ = writeln!(out, "\t}}");
    }
    out.push_str("}\nConnections:  {\n");
    for (j, joint) in joints.iter().enumerate() {
        let parent = joint.parent.map_or(0, joint_id);
        let _ = writeln!(out, "\tC: \"OO\",{},{parent}", joint_id(j));
    }
    let _ = writeln!(out, "\tC: \"OO\",{layer},{stack}");
    for (n, (joint, property)) in nodes.iter().enumerate() {
        let _ = writeln!(out, "\tC: \"OO\",{},{layer}", node_id(n));
        let _ = writeln!(
            out,
            "\tC: \"OP\",{},{}, \"{property}\"",
            node_id(n),
            joint_id(*joint)
        );
    }
    for (c, curve) in curves.iter().enumerate() {
        let n = nodes
            .iter()
            .position(|&(j, p)| (j, p) == (curve.joint, curve.property))
            .unwrap_or_default();
        let axis = ["X", "Y", "Z"][curve.axis];
        let _ = writeln!(
            out,
            "\tC: \"OP\",{},{}, \"d|{axis}\"",
            curve_id(c),
            node_id(n)
        );
    }
    out.push_str("}\n");
    out
}

fn curve(joint: usize, property: &'static str, axis: usize, keys: &[(i64, f64)]) -> Curve {
    Curve {
        joint,
        property,
        axis,
        keys: keys.to_vec(),
        flags: CUBIC_AUTO,
        data: [0.0; 4],
    }
}

const T: &str = "Lcl Translation";
const R: &str = "Lcl Rotation";
const S: &str = "Lcl Scaling";

/// The text of `fbx/maya_joints.fbx`.
pub(crate) fn maya_joints() -> String {
    let joints = vec![
        joint("hips", None, [0.0, 90.0, 0.0], Vec::new()),
        joint(
            "spine",
            Some(0),
            [0.0, 20.0, 0.0],
            vec![
                integer("RotationActive", "bool", 1),
                integer("RotationOrder", "enum", 4),
                vector("PreRotation", [0.0, 0.0, 30.0]),
            ],
        ),
        joint(
            "neck",
            Some(1),
            [0.0, 25.0, 0.0],
            vec![
                integer("InheritType", "enum", 2),
                integer("RotationActive", "bool", 1),
                vector("PreRotation", [-15.0, 0.0, 0.0]),
            ],
        ),
        joint("arm", Some(1), [15.0, 20.0, 0.0], Vec::new()),
        joint(
            "hand",
            Some(3),
            [20.0, 0.0, 0.0],
            vec![
                integer("RotationActive", "bool", 1),
                integer("RotationOrder", "enum", 5),
                vector("PostRotation", [0.0, 90.0, 0.0]),
            ],
        ),
    ];
    let tcb = Curve {
        flags: CUBIC_TCB,
        data: [0.3, -0.2, 0.4, 0.0],
        ..curve(1, R, 2, &[(0, 0.0), (16, 45.0), (32, -20.0), (48, 0.0)])
    };
    let stepped = Curve {
        flags: CONSTANT,
        ..curve(2, R, 0, &[(0, 0.0), (10, 20.0), (25, -15.0)])
    };
    let curves = vec![
        curve(0, T, 0, &[(0, 0.0), (12, 40.0), (30, -20.0), (48, 10.0)]),
        curve(0, T, 1, &[(0, 90.0), (24, 100.0), (48, 90.0)]),
        curve(0, R, 2, &[(0, 0.0), (24, 60.0), (48, 0.0)]),
        curve(1, R, 0, &[(0, 0.0), (20, 80.0), (48, -30.0)]),
        curve(1, R, 1, &[(0, 10.0), (36, -70.0)]),
        tcb,
        curve(1, S, 0, &[(0, 1.0), (24, 1.8), (48, 1.0)]),
        curve(1, S, 1, &[(0, 1.0), (24, 0.6), (48, 1.0)]),
        stepped,
        curve(3, T, 0, &[(0, 15.0), (24, 30.0), (48, 15.0)]),
        curve(4, R, 1, &[(0, 0.0), (48, 120.0)]),
        curve(4, R, 2, &[(6, 0.0), (40, -50.0)]),
    ];
    let maya = Exporter {
        comment: "joints as Maya writes them",
        axes: [1, 1, 2, 1, 0, 1],
        unit: 1.0,
        time_mode: 11,
        fps: 24,
        stack: "take1",
        frames: (1, 48),
    };
    write_scene(&maya, &joints, &curves)
}

/// The text of `fbx/max_biped.fbx`.
pub(crate) fn max_biped() -> String {
    let joints = vec![
        joint("Bip01", None, [0.0, 0.0, 36.0], Vec::new()),
        joint(
            "Bip01 Pelvis",
            Some(0),
            [0.0; 3],
            vec![
                integer("RotationActive", "bool", 1),
                vector("PreRotation", [-90.0, 0.0, -90.0]),
            ],
        ),
        joint("Bip01 Spine", Some(1), [4.0, 0.0, 0.0], Vec::new()),
    ];
    let tcb = |joint, axis, keys: &[(i64, f64)]| Curve {
        flags: CUBIC_TCB,
        data: [0.0, 0.0, 0.0, 0.0],
        ..curve(joint, R, axis, keys)
    };
    let curves = vec![
        curve(0, T, 1, &[(0, 0.0), (15, 12.0), (30, 30.0)]),
        curve(0, T, 2, &[(0, 36.0), (8, 34.0), (22, 37.0), (30, 36.0)]),
        tcb(1, 0, &[(0, 0.0), (10, 25.0), (20, -10.0), (30, 0.0)]),
        tcb(2, 2, &[(0, 0.0), (15, 40.0), (30, 0.0)]),
        tcb(2, 1, &[(0, -5.0), (30, 15.0)]),
    ];
    let max = Exporter {
        comment: "a biped as 3ds Max writes it (Z up, inches)",
        axes: [2, 1, 1, -1, 0, 1],
        unit: 2.54,
        time_mode: 6,
        fps: 30,
        stack: "Take 001",
        frames: (0, 30),
    };
    write_scene(&max, &joints, &curves)
}

/// The text of `fbx/motionbuilder_take.fbx`.
pub(crate) fn motionbuilder_take() -> String {
    let joints = vec![
        joint("Hips", None, [0.0, 95.0, 0.0], Vec::new()),
        joint(
            "LeftUpLeg",
            Some(0),
            [9.0, -5.0, 0.0],
            vec![integer("RotationOrder", "enum", 3)],
        ),
        joint("LeftLeg", Some(1), [0.0, -42.0, 0.0], Vec::new()),
    ];
    // A key every five frames from 0 to 70; the stack ends at frame 40.
    let keys = |f: &dyn Fn(f64) -> f64| -> Vec<(i64, f64)> {
        (0..=14).map(|k| (k * 5, f(k as f64 * 5.0))).collect()
    };
    let wave =
        |phase: f64, amplitude: f64| move |frame: f64| amplitude * (frame * 0.2 + phase).sin();
    let curves = vec![
        curve(0, T, 2, &keys(&|f| f * 2.0 + wave(0.0, 3.0)(f))),
        curve(0, T, 1, &keys(&|f| 95.0 + wave(1.0, 2.0)(f))),
        curve(1, R, 0, &keys(&wave(0.0, 35.0))),
        curve(1, R, 1, &keys(&wave(0.5, 10.0))),
        curve(2, R, 0, &keys(&|f| 30.0 + wave(2.0, 30.0)(f))),
    ];
    let mobu = Exporter {
        comment: "a take as MotionBuilder writes it, keyed past its end",
        axes: [1, 1, 2, 1, 0, 1],
        unit: 1.0,
        time_mode: 6,
        fps: 30,
        stack: "Take 001",
        frames: (0, 40),
    };
    write_scene(&mobu, &joints, &curves)
}

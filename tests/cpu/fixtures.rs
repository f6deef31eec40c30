//! Fixture builder: small rigs built by hand, and the helpers the CPU tests share.

use glam::{Affine3A, Mat4, Quat, Vec3, Vec4};
use sinew::cpu::{blend_layers, sample_joint};
use sinew::import::{RawClip, RawMesh, RawNode, RawSkin, RawTrack};
use sinew::{
    BlendMode, Channel, InstanceRecord, Interpolation, JointMask, Layer, Mat3x4Rows, RawAsset, Rig,
    Sqt,
};

use super::common::{self, EXACT_TOLERANCE, assert_vec_close};

/// A `RawAsset` assembled node by node.
pub(crate) struct Fixture {
    pub(crate) asset: RawAsset,
}

impl Fixture {
    pub(crate) fn new() -> Self {
        Self {
            asset: RawAsset {
                file: "<fixture>".to_string(),
                ..RawAsset::default()
            },
        }
    }

    /// Adds a node and returns its index.
    pub(crate) fn node(&mut self, name: &str, parent: Option<usize>, rest: Sqt) -> usize {
        self.asset.nodes.push(RawNode {
            name: name.to_string(),
            parent,
            rest,
        });
        self.asset.nodes.len() - 1
    }

    /// Adds a clip and returns its index.
    pub(crate) fn clip(&mut self, name: &str, tracks: Vec<RawTrack>) -> u32 {
        self.asset.clips.push(RawClip {
            name: name.to_string(),
            tracks,
            weights: Vec::new(),
            markers: Vec::new(),
        });
        (self.asset.clips.len() - 1) as u32
    }

    /// Adds a skin over `joints` (in that skin order) with the given inverse bind matrices.
    pub(crate) fn skin_with_binds(&mut self, joints: &[usize], inverse_binds: Vec<Mat4>) -> usize {
        self.asset.skins.push(RawSkin {
            name: Some(format!("skin{}", self.asset.skins.len())),
            joints: joints.to_vec(),
            inverse_binds,
            skeleton_root: None,
            mesh_nodes: Vec::new(),
        });
        self.asset.skins.len() - 1
    }

    /// Adds a skin over `joints` whose inverse binds undo their rest model matrices.
    pub(crate) fn skin(&mut self, joints: &[usize]) -> usize {
        let binds = joints
            .iter()
            .map(|&n| Mat4::from(self.rest_model(n)).inverse())
            .collect();
        self.skin_with_binds(joints, binds)
    }

    /// The rest model matrix of `node`: its rest transform under its ancestors'.
    pub(crate) fn rest_model(&self, node: usize) -> Affine3A {
        let n = &self.asset.nodes[node];
        let local = n.rest.to_affine();
        match n.parent {
            Some(p) => self.rest_model(p) * local,
            None => local,
        }
    }

    /// A node rig (no skin) over every node.
    pub(crate) fn node_rig(&self) -> Rig {
        let nodes: Vec<usize> = (0..self.asset.nodes.len()).collect();
        Rig::from_nodes(&self.asset, &nodes, "fixture").unwrap()
    }
}

pub(crate) fn trs(t: [f32; 3], r: Quat, s: [f32; 3]) -> Sqt {
    Sqt {
        translation: Vec3::from(t),
        rotation: r,
        scale: Vec3::from(s),
    }
}

pub(crate) fn at(t: [f32; 3]) -> Sqt {
    trs(t, Quat::IDENTITY, [1.0; 3])
}

pub(crate) fn xyz(x: f32, y: f32, z: f32) -> Vec4 {
    Vec4::new(x, y, z, 0.0)
}

pub(crate) fn qv(q: Quat) -> Vec4 {
    Vec4::from(q)
}

/// A rotation of `deg` degrees about the unit `axis`, written out as `(axis sin θ/2, cos θ/2)`.
pub(crate) fn axis_angle(axis: [f64; 3], deg: f64) -> Quat {
    let h = deg.to_radians() / 2.0;
    let (s, c) = (h.sin(), h.cos());
    Quat::from_xyzw(
        (axis[0] * s) as f32,
        (axis[1] * s) as f32,
        (axis[2] * s) as f32,
        c as f32,
    )
}

pub(crate) fn rz(deg: f64) -> Quat {
    axis_angle([0.0, 0.0, 1.0], deg)
}

pub(crate) fn track(
    target: usize,
    channel: Channel,
    interpolation: Interpolation,
    times: &[f32],
    values: &[Vec4],
) -> RawTrack {
    RawTrack {
        target,
        channel,
        interpolation,
        times: times.to_vec(),
        values: values.to_vec(),
    }
}

pub(crate) fn linear(target: usize, channel: Channel, times: &[f32], values: &[Vec4]) -> RawTrack {
    track(target, channel, Interpolation::Linear, times, values)
}

/// A track holding `value` from t = 0 to t = 1.
pub(crate) fn hold(target: usize, channel: Channel, value: Vec4) -> RawTrack {
    linear(target, channel, &[0.0, 1.0], &[value, value])
}

pub(crate) fn joint(rig: &Rig, name: &str) -> usize {
    rig.skeleton
        .find_joint(name)
        .unwrap_or_else(|| panic!("no joint {name:?}"))
}

pub(crate) fn sample(rig: &Rig, clip: u32, name: &str, t: f32) -> Sqt {
    sample_joint(&rig.clips, clip as usize, joint(rig, name), t)
}

pub(crate) fn blended(rig: &Rig, masks: &[JointMask], layers: &[Layer]) -> Vec<Sqt> {
    let mut locals = vec![Sqt::IDENTITY; rig.joint_count()];
    blend_layers(rig, masks, layers, &mut locals);
    locals
}

pub(crate) fn layer(clip: u32, weight: f32, mask: Option<u32>, mode: BlendMode) -> Layer {
    Layer {
        clip,
        time: 0.5,
        weight,
        mask,
        mode,
    }
}

pub(crate) fn assert_v3(got: Vec3, expected: [f32; 3], what: &str) {
    assert_vec_close(&got.to_array(), &expected, EXACT_TOLERANCE, what);
}

pub(crate) fn assert_v4(got: Vec4, expected: [f32; 4], what: &str) {
    assert_vec_close(&got.to_array(), &expected, EXACT_TOLERANCE, what);
}

pub(crate) fn assert_unit(q: Quat, what: &str) {
    let len = q.length();
    assert!(
        (len - 1.0).abs() <= 1e-6,
        "{what}: |q| = {len}, expected 1 (q = {q:?})"
    );
}

pub(crate) fn cols(a: &Affine3A) -> [f32; 16] {
    Mat4::from(*a).to_cols_array()
}

/// Column-major 4x4 from the images of the three axes and the translation.
pub(crate) fn affine_from(x: [f32; 3], y: [f32; 3], z: [f32; 3], t: [f32; 3]) -> [f32; 16] {
    [
        x[0], x[1], x[2], 0.0, y[0], y[1], y[2], 0.0, z[0], z[1], z[2], 0.0, t[0], t[1], t[2], 1.0,
    ]
}

/// A small deterministic generator for "random-ish" data.
pub(crate) struct Lcg(u64);

impl Lcg {
    pub(crate) fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 40) as f32) / ((1u64 << 24) as f32)
    }

    pub(crate) fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}

/// Root → Hips → {Spine → Chest → Head, LegL}. Clip A puts every joint at T (0, 1, 0), Rz(20°);
/// clip B at T (2, 3, 0), Rz(60°).
pub(crate) fn mask_fixture() -> Fixture {
    let mut f = Fixture::new();
    let root = f.node("Root", None, at([0.0, 0.0, 0.0]));
    let hips = f.node("Hips", Some(root), at([0.0, 1.0, 0.0]));
    let spine = f.node("Spine", Some(hips), at([0.0, 0.2, 0.0]));
    let chest = f.node("Chest", Some(spine), at([0.0, 0.3, 0.0]));
    f.node("Head", Some(chest), at([0.0, 0.3, 0.0]));
    f.node("LegL", Some(hips), at([0.2, -0.1, 0.0]));
    let all = 0..f.asset.nodes.len();
    let pose = |t: Vec4, r: Quat| -> Vec<RawTrack> {
        all.clone()
            .flat_map(|n| {
                [
                    hold(n, Channel::Translation, t),
                    hold(n, Channel::Rotation, qv(r)),
                ]
            })
            .collect()
    };
    let a = pose(xyz(0.0, 1.0, 0.0), rz(20.0));
    let b = pose(xyz(2.0, 3.0, 0.0), rz(60.0));
    f.clip("A", a);
    f.clip("B", b);
    f
}

/// One joint "J" at rest T (1, 0, 0), Rz(5°), S 1. Clips: 0 "base" (T (5, 5, 5), Rz(10°),
/// S 2), 1 "rest" (the rest pose), 2 "turn" (rest × Rz(30°)), 3 "shift" (T (1, 2, 3) only).
pub(crate) fn additive_fixture() -> Rig {
    let mut f = Fixture::new();
    let j = f.node("J", None, trs([1.0, 0.0, 0.0], rz(5.0), [1.0; 3]));
    f.clip(
        "base",
        vec![
            hold(j, Channel::Translation, xyz(5.0, 5.0, 5.0)),
            hold(j, Channel::Rotation, qv(rz(10.0))),
            hold(j, Channel::Scale, xyz(2.0, 2.0, 2.0)),
        ],
    );
    f.clip(
        "rest",
        vec![
            hold(j, Channel::Translation, xyz(1.0, 0.0, 0.0)),
            hold(j, Channel::Rotation, qv(rz(5.0))),
            hold(j, Channel::Scale, xyz(1.0, 1.0, 1.0)),
        ],
    );
    f.clip("turn", vec![hold(j, Channel::Rotation, qv(rz(35.0)))]);
    f.clip(
        "shift",
        vec![hold(j, Channel::Translation, xyz(1.0, 2.0, 3.0))],
    );
    f.node_rig()
}

/// Root → A → B, Root → C. A skin lists them as [B, Root, C, A]; 200 vertices weighted on B,
/// Root and A (never C). Clip 0 "move" turns, moves and scales everything over t = 0..2 (A
/// travels 30 units away from Root and back) and throws C 1000 units away.
pub(crate) fn skinned_fixture() -> Fixture {
    let mut f = Fixture::new();
    let root = f.node("Root", None, at([0.0, 0.0, 0.0]));
    let a = f.node("A", Some(root), at([0.0, 1.0, 0.0]));
    let b = f.node("B", Some(a), at([0.0, 1.0, 0.0]));
    let c = f.node("C", Some(root), at([1.0, 0.0, 0.0]));
    f.skin(&[b, root, c, a]);
    let mut rng = Lcg(0x5eed);
    let mut mesh = RawMesh {
        name: "body".to_string(),
        node: root,
        skin: Some(0),
        ..RawMesh::default()
    };
    for v in 0..200 {
        mesh.positions.push([
            rng.range(-1.5, 1.5),
            rng.range(-0.5, 2.5),
            rng.range(-1.0, 1.0),
        ]);
        // Slots name skin joints 0 (B), 1 (Root), 3 (A) and 2 (C, always weight 0). A quarter
        // of the vertices follow B alone, a quarter Root alone, a quarter A alone; the rest
        // blend all three with random weights, about a third of them zero.
        let mut w = [0.0f32; 4];
        if v % 4 < 3 {
            w[v % 4] = 1.0;
        } else {
            for wk in w.iter_mut().take(3) {
                let r = rng.unit();
                *wk = if r < 0.33 { 0.0 } else { r };
            }
            if w.iter().sum::<f32>() == 0.0 {
                w[0] = 1.0;
            }
        }
        let sum: f32 = w.iter().sum();
        mesh.weights.push(common::eight(w.map(|x| x / sum)));
        mesh.joints.push(common::eight([0, 1, 3, 2]));
        mesh.normals.push([0.0, 0.0, 1.0]);
        mesh.uvs.push([0.0, 0.0]);
    }
    f.asset.meshes.push(mesh);
    f.clip(
        "move",
        vec![
            linear(
                root,
                Channel::Translation,
                &[0.0, 1.0, 2.0],
                &[xyz(0.0, 0.0, 0.0), xyz(2.0, 1.0, 0.0), xyz(-3.0, 0.0, 4.0)],
            ),
            linear(
                a,
                Channel::Translation,
                &[0.0, 1.0, 2.0],
                &[
                    xyz(0.0, 1.0, 0.0),
                    xyz(30.0, 1.0, 0.0),
                    xyz(0.0, -20.0, 10.0),
                ],
            ),
            linear(
                a,
                Channel::Rotation,
                &[0.0, 1.0, 2.0],
                &[
                    qv(Quat::IDENTITY),
                    qv(axis_angle([1.0, 0.0, 0.0], 70.0)),
                    qv(axis_angle([0.6, 0.8, 0.0], -120.0)),
                ],
            ),
            linear(
                b,
                Channel::Rotation,
                &[0.0, 1.0, 2.0],
                &[qv(rz(0.0)), qv(rz(90.0)), qv(rz(200.0))],
            ),
            linear(
                b,
                Channel::Scale,
                &[0.0, 1.0, 2.0],
                &[xyz(1.0, 1.0, 1.0), xyz(1.5, 0.5, 1.0), xyz(1.0, 1.0, 2.0)],
            ),
            hold(c, Channel::Translation, xyz(1000.0, 0.0, 0.0)),
        ],
    );
    f
}

/// Skins every vertex of the fixture's raw mesh by hand: `Σ w palette[joint] v`, with skin
/// joints mapped to skeleton joints by name.
pub(crate) fn skin_by_hand(f: &Fixture, rig: &Rig, palette: &[Mat3x4Rows]) -> Vec<Vec3> {
    let mesh = &f.asset.meshes[0];
    let skin = &f.asset.skins[0];
    let to_joint: Vec<usize> = skin
        .joints
        .iter()
        .map(|&n| joint(rig, &f.asset.nodes[n].name))
        .collect();
    mesh.positions
        .iter()
        .zip(&mesh.joints)
        .zip(&mesh.weights)
        .map(|((p, js), ws)| {
            let mut out = [0.0f32; 3];
            for k in 0..sinew::MAX_INFLUENCES {
                let r = &palette[to_joint[js[k] as usize]].rows;
                for (i, o) in out.iter_mut().enumerate() {
                    *o += ws[k] * (r[i][0] * p[0] + r[i][1] * p[1] + r[i][2] * p[2] + r[i][3]);
                }
            }
            Vec3::from(out)
        })
        .collect()
}

pub(crate) fn record(rig: u32, offset: u32, layers: &[Layer]) -> InstanceRecord {
    InstanceRecord::new(rig, offset, &Affine3A::IDENTITY, layers).unwrap()
}

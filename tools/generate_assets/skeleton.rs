//! Skeletons, poses and clips: joints with rest transforms, poses sampled into keyed clips,
//! and the quaternion continuity and looping helpers the clips use.

use glam::{Mat4, Quat, Vec3};
use serde_json::json;

use crate::gltf::{Channel, Doc, LINEAR, nums};

pub(crate) fn v3(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

pub(crate) fn smoothstep(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// Flips quaternions so that neighbours lie in the same hemisphere, the first
/// one with `w >= 0`.
pub(crate) fn make_continuous(quats: &mut [Quat]) {
    let mut prev: Option<Quat> = None;
    for q in quats.iter_mut() {
        let flip = match prev {
            Some(p) => q.dot(p) < 0.0,
            None => q.w < 0.0,
        };
        if flip {
            *q = -*q;
        }
        prev = Some(*q);
    }
}

/// Makes a looping rotation track end exactly where it starts.
pub(crate) fn close_loop_quats(quats: &mut [Quat]) {
    make_continuous(quats);
    let first = quats[0];
    let last = quats.len() - 1;
    assert!(
        quats[last].dot(first) > 0.9999,
        "looping rotation track does not return to its first key"
    );
    quats[last] = first;
}

fn close_loop_vec3(values: &mut [Vec3]) {
    let first = values[0];
    let last = values.len() - 1;
    assert!(
        values[last].distance(first) < 1e-4,
        "looping translation track does not return to its first key"
    );
    values[last] = first;
}

pub(crate) struct Joint {
    pub(crate) name: String,
    pub(crate) parent: Option<usize>,
    pub(crate) translation: Vec3,
    pub(crate) rotation: Quat,
}

/// Joints in parent-before-child order.
#[derive(Default)]
pub(crate) struct Skeleton {
    pub(crate) joints: Vec<Joint>,
}

#[derive(Clone)]
pub(crate) struct Pose {
    pub(crate) t: Vec<Vec3>,
    pub(crate) r: Vec<Quat>,
    pub(crate) s: Vec<Vec3>,
}

impl Skeleton {
    pub(crate) fn add(&mut self, name: &str, parent: Option<usize>, translation: Vec3) -> usize {
        self.add_rotated(name, parent, translation, Quat::IDENTITY)
    }

    pub(crate) fn add_rotated(
        &mut self,
        name: &str,
        parent: Option<usize>,
        translation: Vec3,
        rotation: Quat,
    ) -> usize {
        assert!(
            self.joints.iter().all(|j| j.name != name),
            "duplicate joint name {name}"
        );
        if let Some(p) = parent {
            assert!(p < self.joints.len());
        }
        self.joints.push(Joint {
            name: name.to_string(),
            parent,
            translation,
            rotation,
        });
        self.joints.len() - 1
    }

    pub(crate) fn len(&self) -> usize {
        self.joints.len()
    }

    pub(crate) fn children(&self, j: usize) -> Vec<usize> {
        (0..self.len())
            .filter(|&c| self.joints[c].parent == Some(j))
            .collect()
    }

    pub(crate) fn depth(&self, j: usize) -> usize {
        match self.joints[j].parent {
            Some(p) => 1 + self.depth(p),
            None => 1,
        }
    }

    pub(crate) fn rest(&self) -> Pose {
        Pose {
            t: self.joints.iter().map(|j| j.translation).collect(),
            r: self.joints.iter().map(|j| j.rotation).collect(),
            s: vec![Vec3::ONE; self.len()],
        }
    }

    /// World matrices of a pose; `base` is the transform above the root joints.
    pub(crate) fn globals(&self, base: Mat4, pose: &Pose) -> Vec<Mat4> {
        let mut out: Vec<Mat4> = Vec::with_capacity(self.len());
        for (i, joint) in self.joints.iter().enumerate() {
            let local = Mat4::from_scale_rotation_translation(pose.s[i], pose.r[i], pose.t[i]);
            let parent = joint.parent.map_or(base, |p| out[p]);
            out.push(parent * local);
        }
        out
    }

    pub(crate) fn rest_positions(&self, base: Mat4) -> Vec<Vec3> {
        self.globals(base, &self.rest())
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect()
    }

    /// Appends one node per joint (node index = `doc.nodes.len()` + joint
    /// index) and returns the node indices of the joints.
    pub(crate) fn write_nodes(&self, doc: &mut Doc) -> Vec<usize> {
        let first = doc.nodes.len();
        for (i, joint) in self.joints.iter().enumerate() {
            let mut node = json!({"name": joint.name});
            if joint.translation != Vec3::ZERO {
                node["translation"] = nums(&joint.translation.to_array());
            }
            if joint.rotation != Quat::IDENTITY {
                node["rotation"] = nums(&joint.rotation.to_array());
            }
            let children: Vec<usize> = self.children(i).iter().map(|c| first + c).collect();
            if !children.is_empty() {
                node["children"] = json!(children);
            }
            doc.node(node);
        }
        (first..first + self.len()).collect()
    }

    /// Appends a skin over all joints; `base` is the world transform of the
    /// root joints' parent, used for the inverse bind matrices.
    pub(crate) fn write_skin(
        &self,
        doc: &mut Doc,
        name: &str,
        nodes: &[usize],
        skeleton: usize,
        base: Mat4,
    ) -> usize {
        let ibm: Vec<f32> = self
            .globals(base, &self.rest())
            .iter()
            .flat_map(|m| m.inverse().to_cols_array())
            .collect();
        let ibm = doc.floats(&ibm, "MAT4", None, false);
        doc.skins.push(json!({
            "name": name,
            "inverseBindMatrices": ibm,
            "skeleton": skeleton,
            "joints": nodes,
        }));
        doc.skins.len() - 1
    }
}

/// A clip sampled at evenly spaced key times, both ends included.
pub(crate) struct Clip {
    pub(crate) times: Vec<f32>,
    pub(crate) poses: Vec<Pose>,
}

pub(crate) fn sample_clip(duration: f32, keys: usize, pose_at: impl Fn(f32) -> Pose) -> Clip {
    let intervals = (keys - 1) as f32;
    let times: Vec<f32> = (0..keys)
        .map(|i| duration * (i as f32 / intervals))
        .collect();
    let poses = times.iter().map(|&t| pose_at(t)).collect();
    Clip { times, poses }
}

/// Writes a LINEAR clip. Rotation tracks always loop; each translation track
/// loops when its flag is set (root motion does not).
pub(crate) fn write_clip(
    doc: &mut Doc,
    name: &str,
    clip: &Clip,
    nodes: &[usize],
    rotations: &[usize],
    translations: &[(usize, bool)],
) {
    doc.begin_pack();
    let input = doc.times(&clip.times);
    let mut channels = Vec::new();
    for &(joint, looping) in translations {
        let mut values: Vec<Vec3> = clip.poses.iter().map(|p| p.t[joint]).collect();
        if looping {
            close_loop_vec3(&mut values);
        }
        let output = doc.vec3s(&values);
        channels.push(Channel {
            node: nodes[joint],
            path: "translation",
            interpolation: LINEAR,
            input,
            output,
        });
    }
    for &joint in rotations {
        let mut values: Vec<Quat> = clip.poses.iter().map(|p| p.r[joint].normalize()).collect();
        close_loop_quats(&mut values);
        let output = doc.quats(&values);
        channels.push(Channel {
            node: nodes[joint],
            path: "rotation",
            interpolation: LINEAR,
            input,
            output,
        });
    }
    doc.end_pack();
    doc.animation(name, &channels);
}

//! glTF 2.0, clause by clause: Accessors (§3.6) and Animations (§3.11). Every MUST has a case
//! that breaks it; what the specification allows has a case that imports. The valid cases live
//! here too, beside the invalid ones, because both start from the minimal file.
//!
//! §3.6.1  count >= 1 (schema) ................................ accessor_count_must_be_at_least_one
//!         byteOffset only with a bufferView (schema) ......... byte_offset_without_a_buffer_view
//! §3.6.2  no NaN or infinity in float data ................... float_data_must_not_hold_nan_or_infinity,
//!                                                              nan_key_value, infinite_key_time,
//!                                                              nan_in_an_inverse_bind_matrix
//!         normalized integers decode with the equations ...... normalized_keys_decode_with_the_spec_equations
//! §3.6.3  sparse count <= accessor count ..................... sparse_count_above_the_accessor_count
//!         sparse indices < accessor count .................... sparse_index_not_below_the_accessor_count
//!         sparse indices increase strictly ................... sparse_indices_must_increase_strictly
//!         without bufferView: zeros, then sparse values (MAY)  sparse_accessor_without_a_buffer_view_is_read
//!         sparse data aligned, its views without byteStride .. sparse_data_must_be_aligned_and_tightly_packed
//! §3.6.4  byteOffset (in view and buffer) % component size ... accessor_offsets_must_be_multiples_of_the_component_size
//!         byteStride % component size ........................ byte_stride_must_be_a_multiple_of_the_component_size
//!         byteStride only on vertex attribute views (§3.6) ... byte_stride_only_on_vertex_attribute_views
//!         a view shared by vertex attributes has byteStride .. shared_vertex_attribute_view_must_define_byte_stride
//!         interleaved vertex attributes (MAY) ................ interleaved_vertex_attributes_are_read
//!         an accessor fits its buffer view ................... accessor_range_beyond_its_buffer_view
//!         vertex attribute elements 4-byte aligned ........... vertex_attributes_must_be_4_byte_aligned
//! §3.6.5  min/max: one entry per component ................... bounds_must_have_one_entry_per_component
//!         min/max equal the data's extremes .................. bounds_must_match_the_data
//!         normalized: min/max hold the stored integers ....... normalized_keys_decode_with_the_spec_equations
//!         animation inputs define min and max ................ animation_input_must_define_bounds
//! §3.11   channels: at least one (schema) .................... animation_without_channels
//!         each target at most once (weights too) ............. two_channels_animating_the_same_property,
//!                                                              weights_target_used_twice
//!         "weights" only on nodes with morph targets ......... weights_must_target_a_node_with_morph_targets
//!         output accessor types per path ..................... rotation_keys_of_type_vec3, weights_keys_must_be_scalar,
//!                                                              key_times_stored_as_unsigned_short
//!         weights output = targets × keys (MAY animate) ...... weights_output_must_hold_one_value_per_target_per_key,
//!                                                              weights_channel_on_a_morphed_node_imports
//!         output count = input count (× 3 for CUBICSPLINE) ... linear_output_count_differs_from_input_count,
//!                                                              cubic_spline_output_count_differs_from_three_per_key
//!         input times >= 0, strictly increasing (schema) ..... negative_key_time, non_increasing_key_times
//!         CUBICSPLINE needs at least 2 keys (appendix C) ..... cubic_spline_sampler_must_have_at_least_two_keys
//!         one key per channel: a pose (MAY) .................. single_key_clip_is_a_pose_at_every_time
//!         a channel without target node is ignored (SHOULD) .. channel_without_a_target_node_is_ignored
//!
//! Scenes, nodes, skins and meshes (cases in malformed/nodes.rs and malformed/meshes.rs):
//! §3.5.1  scene.nodes are roots, each once ................... scene_must_list_only_root_nodes,
//!                                                              scene_must_not_list_a_node_twice
//!         a root in several scenes, or no scene (MAY) ........ a_root_may_appear_in_several_scenes,
//!                                                              a_file_without_scenes_imports
//! §3.5.2  children indices valid (schema) .................... child_node_out_of_range
//!         disjoint strict trees: no cycle, one parent ........ node_that_is_its_own_child, cyclic_node_graph,
//!                                                              node_with_two_parents, long_node_cycle_is_found
//! §3.5.3  matrix or TRS, not both ............................ node_must_not_define_matrix_and_trs
//!         matrix decomposable to TRS ......................... matrix_with_shear,
//!                                                              matrix_with_a_zero_scale_axis_is_decomposable
//!         an animated node has no matrix ..................... animated_node_must_not_define_a_matrix
//!         rotation a unit quaternion (validator tolerance) ... node_rotation_must_be_a_unit_quaternion,
//!                                                              node_rotation_within_quantization_error_of_unit_length_imports
//!         skin and weights need a mesh (schema) .............. node_with_a_skin_must_have_a_mesh,
//!                                                              node_with_weights_must_have_a_mesh
//! §3.7.3  joints: at least one, unique, valid nodes .......... skin_without_joints, skin_with_duplicate_joints,
//!                                                              skin_joint_node_out_of_range
//!         joints have a common root .......................... skin_joints_must_have_a_common_root
//!         skeleton is the common root or above it ............ skeleton_must_be_at_or_above_the_common_root_of_the_joints,
//!                                                              skeleton_above_the_common_root_of_the_joints_is_allowed
//!         inverse binds: MAT4 float, affine .................. inverse_bind_matrices_must_be_float_mat4,
//!                                                              inverse_bind_matrix_that_is_not_affine
//!         inverse bind count >= joint count .................. inverse_bind_count_differs_from_joint_count,
//!                                                              more_inverse_bind_matrices_than_joints_is_allowed
//! §3.7.2  primitives: at least one (schema) .................. mesh_must_have_a_primitive
//!         mode one of the seven (schema) ..................... primitive_mode_must_be_a_gltf_mode
//!         POSITION defines min and max ....................... position_accessor_must_define_bounds
//!         attribute formats per semantic, on every mesh ...... attribute_formats_per_semantic_hold_on_every_mesh,
//!                                                              joints_stored_as_float, weights_stored_as_normalized_short
//!         VEC4 colors, `_NAME` attributes of any format (MAY)  vec4_float_colors_and_application_specific_attributes_import
//!         UNSIGNED_INT only for indices (§3.6.2) ............. application_specific_attributes_must_not_be_unsigned_int
//!         a count that is not whole triangles (warning) ...... indices_left_over_after_the_last_triangle_are_dropped
//!         all attributes of a primitive: one count ........... attributes_of_a_primitive_must_have_one_count,
//!                                                              weights_with_fewer_elements_than_positions
//!         attribute sets numbered from 0 without gaps ........ attribute_sets_must_be_numbered_from_0_without_gaps
//!         set indices without leading zeros .................. attribute_set_indices_must_not_have_leading_zeros
//!         JOINTS_n and WEIGHTS_n in pairs .................... joints_1_without_weights_1,
//!                                                              weights_1_without_joints_1_on_an_unskinned_mesh
//!         indices: SCALAR unsigned ........................... indices_must_be_scalar_unsigned_integers
//!         indices: no primitive restart value ................ indices_must_not_hold_the_primitive_restart_value
//!         indices below the vertex count ..................... triangle_index_not_below_the_vertex_count,
//!                                                              indices_of_an_unskinned_mesh_must_be_below_its_vertex_count
//!         morph targets: target formats, the vertex count .... morph_target_attributes_must_have_the_target_formats,
//!                                                              morph_target_with_a_wrong_vertex_count
//!         morph targets displace base attributes only ........ morph_target_attributes_must_displace_base_attributes
//!         morph targets: one count for all primitives ........ primitives_with_different_morph_target_counts
//!         mesh and node weights: one per target .............. default_morph_weights_that_are_not_one_per_target
//! §3.7.3.3 weights not negative .............................. vertex_with_a_negative_weight
//!         one joint, one non-zero weight per vertex .......... joint_must_not_have_two_non_zero_weights_on_one_vertex
//!         every joint value within the skin, weighted or not . vertex_joint_index_not_below_the_joint_count,
//!                                                              joint_values_of_zero_weight_must_be_within_the_skin_too
//!         every skinned primitive has JOINTS_0, WEIGHTS_0 .... skinned_primitive_without_joints_0,
//!                                                              every_primitive_of_a_skinned_mesh_needs_joints_and_weights
//!         weight sums close to 1 (SHOULD): renormalized ...... weights_that_do_not_sum_to_one_import_renormalized
//!         all-zero weights (valid) ........................... all_zero_weights_on_an_unskinned_mesh_import
//! KHR_mesh_quantization: attribute and morph target types .. quantized_attribute_of_a_type_the_extension_does_not_allow,
//!                                                              quantized_morph_targets_import_per_the_extension,
//!                                                              quantized_morph_targets_need_the_extension_and_a_signed_type

use serde_json::{Value, json};
use sinew::ImportErrorKind;

use super::common;
use super::fixtures::{
    BODY, FLOAT, Gltf, JOINTS, POSITION, ROTATIONS, SHORT, SPARSE_INDEX_VIEW, SPARSE_VALUE_VIEW,
    TIMES, TRANSLATIONS, UNSIGNED_SHORT, WEIGHTS, build, declare, floats, import_and_bake,
    import_error, import_ok, valid, valid_streams, with_streams,
};

impl Gltf {
    /// Appends `bytes` as a new buffer view (4-byte aligned) and returns its index.
    pub(crate) fn push_view(&mut self, bytes: &[u8], stride: Option<usize>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut view =
            json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(stride) = stride {
            view["byteStride"] = json!(stride);
        }
        self.bin.extend_from_slice(bytes);
        self.json["buffers"][0]["byteLength"] = json!(self.bin.len());
        let views = self.json["bufferViews"].as_array_mut().unwrap();
        views.push(view);
        views.len() - 1
    }

    /// Appends an accessor and returns its index.
    pub(crate) fn push_accessor(&mut self, accessor: Value) -> usize {
        let accessors = self.json["accessors"].as_array_mut().unwrap();
        accessors.push(accessor);
        accessors.len() - 1
    }
}

/// Asserts `file` fails with an [`ImportErrorKind::AccessorRule`] on `accessor` whose text holds
/// `needle`.
fn assert_accessor_rule(name: &str, file: &Gltf, accessor: usize, needle: &str) {
    let err = import_error(name, &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorRule { accessor: a, .. } if *a == accessor,
        format!("accessor {accessor}"),
        needle
    );
}

#[test]
fn accessor_count_must_be_at_least_one() {
    let mut file = valid();
    file.json["accessors"][TIMES]["count"] = json!(0);
    assert_accessor_rule("count-0.gltf", &file, TIMES, "at least 1");
}

#[test]
fn byte_offset_without_a_buffer_view() {
    let mut file = valid();
    let translations = file.json["accessors"][TRANSLATIONS]
        .as_object_mut()
        .unwrap();
    translations.remove("bufferView");
    translations.insert("byteOffset".into(), json!(0));
    translations.insert(
        "sparse".into(),
        json!({
            "count": 1,
            "indices": {"bufferView": SPARSE_INDEX_VIEW, "componentType": UNSIGNED_SHORT},
            "values": {"bufferView": SPARSE_VALUE_VIEW},
        }),
    );
    assert_accessor_rule(
        "offset-without-view.gltf",
        &file,
        TRANSLATIONS,
        "no bufferView",
    );
}

#[test]
fn float_data_must_not_hold_nan_or_infinity() {
    let mut file = valid();
    let normals = floats(&[[0.0, 0.0, 1.0], [f32::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let view = file.push_view(&normals, None);
    let accessor = file.push_accessor(
        json!({"bufferView": view, "count": 3, "componentType": FLOAT, "type": "VEC3"}),
    );
    file.json["meshes"][0]["primitives"][0]["attributes"]["NORMAL"] = json!(accessor);
    let err = import_error("nan-normal.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { .. },
        "mesh 0 primitive 0 NORMAL"
    );
}

/// The minimal file with `TRANSLATIONS` patched by a sparse substitution of `indices` and
/// `values`.
fn with_sparse_translations(indices: Vec<u16>, values: Vec<[f32; 3]>) -> Gltf {
    let count = indices.len();
    let mut file = with_streams(|s| {
        s.sparse_indices = indices;
        s.sparse_values = values;
    });
    file.json["accessors"][TRANSLATIONS]["sparse"] = json!({
        "count": count,
        "indices": {"bufferView": SPARSE_INDEX_VIEW, "componentType": UNSIGNED_SHORT},
        "values": {"bufferView": SPARSE_VALUE_VIEW},
    });
    file
}

#[test]
fn sparse_indices_must_increase_strictly() {
    for (name, indices) in [
        ("sparse-repeat.gltf", vec![1, 1]),
        ("sparse-down.gltf", vec![1, 0]),
    ] {
        let file = with_sparse_translations(indices, vec![[0.0, 1.0, 0.0], [0.0, 2.0, 0.0]]);
        assert_accessor_rule(name, &file, TRANSLATIONS, "increase strictly");
    }
}

#[test]
fn sparse_accessor_without_a_buffer_view_is_read() {
    let mut file = with_sparse_translations(vec![1], vec![[0.0, 3.0, 0.0]]);
    file.json["accessors"][TRANSLATIONS]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let asset = import_ok("sparse-zeros.gltf", &file.to_gltf());
    let track = asset.clips[0]
        .tracks
        .iter()
        .find(|t| t.channel == sinew::Channel::Translation)
        .unwrap();
    assert_eq!(
        track.values,
        [glam::Vec4::ZERO, glam::Vec4::new(0.0, 3.0, 0.0, 0.0)]
    );
}

#[test]
fn sparse_data_must_be_aligned_and_tightly_packed() {
    let mut file = with_sparse_translations(vec![1], vec![[0.0, 1.0, 0.0]]);
    file.json["bufferViews"][SPARSE_VALUE_VIEW]["byteStride"] = json!(12);
    assert_accessor_rule("sparse-stride.gltf", &file, TRANSLATIONS, "byteStride");
    let mut file = with_sparse_translations(vec![1], vec![[0.0, 1.0, 0.0]]);
    file.json["accessors"][TRANSLATIONS]["sparse"]["values"]["byteOffset"] = json!(2);
    assert_accessor_rule(
        "sparse-offset.gltf",
        &file,
        TRANSLATIONS,
        "not a multiple of 4",
    );
}

#[test]
fn accessor_offsets_must_be_multiples_of_the_component_size() {
    let mut file = valid();
    file.json["accessors"][ROTATIONS]["byteOffset"] = json!(2);
    assert_accessor_rule("accessor-offset.gltf", &file, ROTATIONS, "component size 4");
    let mut file = valid();
    let offset = file.json["bufferViews"][ROTATIONS]["byteOffset"]
        .as_u64()
        .unwrap();
    file.json["bufferViews"][ROTATIONS]["byteOffset"] = json!(offset + 2);
    assert_accessor_rule("view-offset.gltf", &file, ROTATIONS, "component size 4");
}

#[test]
fn byte_stride_must_be_a_multiple_of_the_component_size() {
    let mut file = valid();
    file.json["bufferViews"][WEIGHTS]["byteStride"] = json!(18);
    file.json["bufferViews"][WEIGHTS]["byteLength"] = json!(52);
    assert_accessor_rule("stride-18.gltf", &file, WEIGHTS, "component size 4");
}

#[test]
fn byte_stride_only_on_vertex_attribute_views() {
    let mut file = valid();
    file.json["bufferViews"][ROTATIONS]["byteStride"] = json!(16);
    assert_accessor_rule(
        "animation-stride.gltf",
        &file,
        ROTATIONS,
        "only vertex attribute views",
    );
}

#[test]
fn vertex_attributes_must_be_4_byte_aligned() {
    let mut file = valid();
    file.json["bufferViews"][JOINTS]["byteStride"] = json!(10);
    file.json["bufferViews"][JOINTS]["byteLength"] = json!(28);
    assert_accessor_rule("stride-10.gltf", &file, JOINTS, "4-byte aligned");
    let mut file = valid();
    file.json["accessors"][JOINTS]["byteOffset"] = json!(2);
    assert_accessor_rule("offset-2.gltf", &file, JOINTS, "4-byte aligned");
}

/// The minimal file with POSITION and WEIGHTS interleaved in one new view (`stride`: its
/// `byteStride`, if any).
fn interleaved(stride: Option<usize>) -> Gltf {
    let s = valid_streams();
    let mut file = build(&s);
    let bytes: Vec<u8> = s
        .positions
        .iter()
        .zip(&s.weights)
        .flat_map(|(p, w)| floats(&[*p]).into_iter().chain(floats(&[*w])))
        .collect();
    let view = file.push_view(&bytes, stride);
    file.json["accessors"][POSITION]["bufferView"] = json!(view);
    file.json["accessors"][WEIGHTS]["bufferView"] = json!(view);
    file.json["accessors"][WEIGHTS]["byteOffset"] = json!(12);
    file
}

#[test]
fn interleaved_vertex_attributes_are_read() {
    let asset = import_ok("interleaved.gltf", &interleaved(Some(28)).to_gltf());
    let plain = import_ok("plain.gltf", &valid().to_gltf());
    assert_eq!(asset.meshes, plain.meshes);
}

#[test]
fn shared_vertex_attribute_view_must_define_byte_stride() {
    let file = interleaved(None);
    assert_accessor_rule("shared-view.gltf", &file, WEIGHTS, "defines no byteStride");
}

#[test]
fn bounds_must_have_one_entry_per_component() {
    let mut file = valid();
    file.json["accessors"][TIMES]["min"] = json!([0.0, 0.0]);
    assert_accessor_rule("min-length.gltf", &file, TIMES, "array of 1 numbers");
}

#[test]
fn bounds_must_match_the_data() {
    let mut file = valid();
    file.json["accessors"][TIMES]["max"] = json!([2.0]);
    assert_accessor_rule("max-mismatch.gltf", &file, TIMES, "max[0] is 2");
    let mut file = valid();
    file.json["accessors"][POSITION]["min"] = json!([0.0, -1.0, 0.0]);
    assert_accessor_rule("position-min.gltf", &file, POSITION, "min[1] is -1");
}

#[test]
fn animation_input_must_define_bounds() {
    let mut file = valid();
    file.json["accessors"][TIMES]
        .as_object_mut()
        .unwrap()
        .remove("max");
    assert_accessor_rule("no-max.gltf", &file, TIMES, "must define max");
}

#[test]
fn normalized_keys_decode_with_the_spec_equations() {
    // Rotation keys as normalized shorts; min/max hold the stored integers, not the decoded
    // values. f = max(c / 32767, -1): -32768 and -32767 both decode to -1.
    let stored: [[i16; 4]; 2] = [[0, 0, -32768, 32767], [0, 0, 23170, 23170]];
    let mut file = valid();
    let bytes: Vec<u8> = stored
        .iter()
        .flatten()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    let view = file.push_view(&bytes, None);
    let rotations = &mut file.json["accessors"][ROTATIONS];
    rotations["bufferView"] = json!(view);
    rotations["componentType"] = json!(SHORT);
    rotations["normalized"] = json!(true);
    rotations["min"] = json!([0, 0, -32768, 23170]);
    rotations["max"] = json!([0, 0, 23170, 32767]);
    let asset = import_ok("short-rotations.gltf", &file.to_gltf());
    let track = asset.clips[0]
        .tracks
        .iter()
        .find(|t| t.channel == sinew::Channel::Rotation)
        .unwrap();
    for (key, c) in track.values.iter().zip(&stored) {
        let decoded =
            glam::Vec4::from_array(c.map(|c| (f32::from(c) / 32767.0).max(-1.0))).normalize();
        common::assert_vec_close(
            &key.to_array(),
            &decoded.to_array(),
            common::EXACT_TOLERANCE,
            "rotation key",
        );
    }
}

/// The minimal file whose mesh has `targets` morph targets (displacements: the positions) and
/// whose animation gains a `weights` channel on the mesh node with output `output`.
fn with_weights_channel(targets: usize, output: usize) -> Gltf {
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["targets"] =
        json!(vec![json!({"POSITION": POSITION}); targets]);
    let animation = &mut file.json["animations"][0];
    let sampler = animation["samplers"].as_array().unwrap().len();
    animation["samplers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"input": TIMES, "output": output}));
    animation["channels"]
        .as_array_mut()
        .unwrap()
        .push(json!({"sampler": sampler, "target": {"node": BODY, "path": "weights"}}));
    file
}

#[test]
fn weights_channel_on_a_morphed_node_imports() {
    // Two keys of one target: the two key times double as weights.
    let asset = import_ok("weights.gltf", &with_weights_channel(1, TIMES).to_gltf());
    let plain = import_ok("plain.gltf", &valid().to_gltf());
    assert_eq!(
        asset.clips[0].tracks, plain.clips[0].tracks,
        "joint tracks unchanged"
    );
    assert_eq!(
        asset.clips[0].weights.len(),
        1,
        "the weights channel is kept"
    );
}

#[test]
fn weights_output_must_hold_one_value_per_target_per_key() {
    let err = import_error(
        "weights-count.gltf",
        &with_weights_channel(2, TIMES).to_gltf(),
    );
    assert_kind!(
        err,
        ImportErrorKind::WeightKeyCount {
            animation: 0,
            channel: 2,
            ..
        },
        "animation 0 channel 2",
        "2 weight values"
    );
}

#[test]
fn weights_must_target_a_node_with_morph_targets() {
    let err = import_error(
        "weights-no-targets.gltf",
        &with_weights_channel(0, TIMES).to_gltf(),
    );
    assert_kind!(
        err,
        ImportErrorKind::WeightsTarget {
            animation: 0,
            channel: 2,
            ..
        },
        "animation 0 channel 2",
        "no morph targets"
    );
}

#[test]
fn weights_keys_must_be_scalar() {
    let err = import_error(
        "weights-vec4.gltf",
        &with_weights_channel(1, ROTATIONS).to_gltf(),
    );
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat {
            accessor: ROTATIONS,
            ..
        },
        "morph weight keys"
    );
}

#[test]
fn weights_target_used_twice() {
    let mut file = with_weights_channel(1, TIMES);
    let channels = file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap();
    let again = channels[2].clone();
    channels.push(again);
    let err = import_error("weights-twice.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::DuplicateChannel {
            animation: 0,
            channel: "weights",
            ..
        },
        "two channels animate weights of body"
    );
}

#[test]
fn cubic_spline_sampler_must_have_at_least_two_keys() {
    let mut file = with_streams(|s| {
        s.times = vec![0.0];
        s.rotations = vec![[0.0; 4], [0.0, 0.0, 0.0, 1.0], [0.0; 4]];
        s.translations = vec![[0.0; 3]];
    });
    file.json["animations"][0]["samplers"][0]["interpolation"] = json!("CUBICSPLINE");
    let err = import_error("cubic-one-key.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ChannelRule {
            animation: 0,
            channel: 0,
            ..
        },
        "animation 0 channel 0",
        "at least 2 keys"
    );
}

#[test]
fn channel_without_a_target_node_is_ignored() {
    // As KHR_animation_pointer writes them: the target names a pointer, not a node (here to a
    // property sinew does not animate).
    let pointer = json!({
        "sampler": 1,
        "target": {"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": "/materials/0/emissiveFactor"}}},
    });
    let mut file = valid();
    declare(&mut file, &[("KHR_animation_pointer", false)]);
    file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(pointer.clone());
    let asset = import_ok("pointer.gltf", &file.to_gltf());
    let plain = import_ok("plain.gltf", &valid().to_gltf());
    assert_eq!(asset.clips, plain.clips);
    // An animation whose every channel is ignored is an empty clip, not an error.
    file.json["animations"][0]["channels"] = json!([pointer]);
    let rigs =
        import_and_bake("pointer-only.glb", &file.to_glb(), None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rigs[0].clips.clips()[0].duration, 0.0);
}

"""Converts a glTF rig into a binary FBX file with its animations, using Blender.

    blender -b --factory-startup --python tools/fbx_export.py -- in.glb out.fbx

The scene frame rate is set to the clip's key rate before the import, so that every glTF key
lands on a whole frame and the FBX exporter (which samples whole frames) keeps the key times.
Each animation becomes one FBX animation stack, with every bone keyed. Unit scaling is applied
to the objects, so that no node carries a scale of 100 in the file.
"""

import json
import struct
import sys

import numpy

# Blender 3.4's glTF importer still uses `numpy.bool`, which numpy 1.24 removed.
numpy.bool = bool

import bpy  # noqa: E402


def glb_json(path):
    """The JSON chunk and binary chunk of a .glb file."""
    data = open(path, "rb").read()
    if data[:4] != b"glTF":
        raise SystemExit(f"{path}: not a .glb file")
    length = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20 : 20 + length])
    binary = data[20 + length + 8 :]
    return doc, binary


def key_rate(path):
    """Keys per second of the file's animations: the inverse of the shortest key interval."""
    doc, binary = glb_json(path)
    shortest = None
    for anim in doc.get("animations", []):
        for sampler in anim["samplers"]:
            acc = doc["accessors"][sampler["input"]]
            view = doc["bufferViews"][acc["bufferView"]]
            start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
            times = struct.unpack_from(f"<{acc['count']}f", binary, start)
            for a, b in zip(times, times[1:]):
                if b > a and (shortest is None or b - a < shortest):
                    shortest = b - a
    return 30 if shortest is None else max(1, round(1.0 / shortest))


def rename_actions(path):
    """Names each action after its glTF animation (Blender's importer appends the object's name),
    so that the FBX stacks read `Object|animation`."""
    doc, _ = glb_json(path)
    names = sorted((a.get("name", "") for a in doc.get("animations", [])), key=len, reverse=True)
    for action in bpy.data.actions:
        for name in names:
            if name and action.name.startswith(name + "_"):
                action.name = name
                break


def key_every_bone(armature):
    """Keys the rest value of every bone channel an action leaves out, at the action's first
    frame. Otherwise the exporter bakes such a channel with whatever pose the previous action
    left behind."""
    defaults = {"location": (0.0, 0.0, 0.0), "rotation_quaternion": (1.0, 0.0, 0.0, 0.0),
                "scale": (1.0, 1.0, 1.0)}
    for action in bpy.data.actions:
        present = {(c.data_path, c.array_index) for c in action.fcurves}
        start = action.frame_range[0]
        for bone in armature.pose.bones:
            for prop, values in defaults.items():
                path = f'pose.bones["{bone.name}"].{prop}'
                for index, value in enumerate(values):
                    if (path, index) in present:
                        continue
                    curve = action.fcurves.new(path, index=index, action_group=bone.name)
                    curve.keyframe_points.insert(start, value)


def rest_pose(armature):
    """Unassigns the armature's action, mutes its NLA tracks and clears its pose: the exporter
    writes the skin's bind matrices from the pose current at export time."""
    data = armature.animation_data
    if data is not None:
        data.action = None
        for track in data.nla_tracks:
            track.mute = True
    for bone in armature.pose.bones:
        bone.location = (0.0, 0.0, 0.0)
        bone.rotation_quaternion = (1.0, 0.0, 0.0, 0.0)
        bone.rotation_euler = (0.0, 0.0, 0.0)
        bone.scale = (1.0, 1.0, 1.0)


def main():
    args = sys.argv[sys.argv.index("--") + 1 :]
    if len(args) != 2:
        raise SystemExit("usage: blender -b --python fbx_export.py -- in.glb out.fbx")
    src, dst = args
    rate = key_rate(src)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.fps = rate
    scene.render.fps_base = 1.0
    bpy.ops.import_scene.gltf(filepath=src)
    rename_actions(src)
    for armature in [o for o in scene.objects if o.type == "ARMATURE"]:
        key_every_bone(armature)
        rest_pose(armature)
    bpy.context.view_layer.update()
    bpy.ops.export_scene.fbx(
        filepath=dst,
        use_selection=False,
        object_types={"ARMATURE", "MESH", "EMPTY"},
        add_leaf_bones=False,
        use_armature_deform_only=False,
        mesh_smooth_type="OFF",
        use_mesh_modifiers=False,
        bake_anim=True,
        bake_anim_use_all_bones=True,
        bake_anim_use_nla_strips=False,
        bake_anim_use_all_actions=True,
        bake_anim_force_startend_keying=True,
        bake_anim_step=1.0,
        bake_anim_simplify_factor=0.0,
        axis_forward="-Z",
        axis_up="Y",
        apply_scale_options="FBX_SCALE_ALL",
        embed_textures=False,
        path_mode="STRIP",
    )
    print(f"fbx_export: {src} -> {dst} at {rate} frames per second")


main()

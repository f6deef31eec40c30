// Animation LOD: whether lane k evaluates a record this frame and at which joint LOD level.
// Twin of `evaluation` in src/lod.rs. A record whose LOD bits are all 0 takes them from the
// header's policy (when HEADER_LOD_POLICY is set): its level is how many of the policy's
// distances its world translation lies at or beyond, its interval the policy's for that level,
// its phase its slot. Frozen records run only when the header evaluates every slot; a record
// with SKIP_CULLED whose box the renderer's last culling left out of both frusta (max.w = 1.0)
// runs every max(N, CULLED_REFRESH) frames only (phase: its slot), so its box catches up with it.

// Where the decision goes: x = LOD level, y = 1 when the record is evaluated.
fn lod_plan(slot: u32, flags_in: u32, world: Mat3x4Rows, culled: bool) -> vec2<u32> {
    let global_slot = header.slot_base + slot;
    var flags = flags_in;
    if (flags & LOD_BITS) == 0u && (header.lod_flags & HEADER_LOD_POLICY) != 0u {
        let position = vec3<f32>(world.rows[0].w, world.rows[1].w, world.rows[2].w);
        let d = position - header.lod_eye.xyz;
        let d2 = dot(d, d);
        var level = 0u;
        for (var k = 0u; k < 3u; k++) {
            if d2 >= header.lod_distances[k] {
                level += 1u;
            }
        }
        let interval = min(header.lod_every[level], 31u);
        if interval > 1u {
            flags |= (interval << UPDATE_EVERY_SHIFT) | ((global_slot % interval) << UPDATE_PHASE_SHIFT);
        }
        flags |= level << LOD_LEVEL_SHIFT;
        if (header.lod_flags & HEADER_POLICY_SKIPS_CULLED) != 0u {
            flags |= SKIP_CULLED;
        }
    }
    let level = (flags & LOD_LEVEL) >> LOD_LEVEL_SHIFT;
    if (header.lod_flags & HEADER_EVALUATE_ALL) != 0u {
        return vec2<u32>(level, 1u);
    }
    if (flags & FROZEN) != 0u {
        return vec2<u32>(level, 0u);
    }
    let interval = (flags & UPDATE_EVERY) >> UPDATE_EVERY_SHIFT;
    var due = true;
    if culled && (flags & SKIP_CULLED) != 0u {
        due = (header.frame + global_slot) % max(interval, CULLED_REFRESH) == 0u;
    } else {
        let phase = (flags & UPDATE_PHASE) >> UPDATE_PHASE_SHIFT;
        due = interval <= 1u || (header.frame + phase) % interval == 0u;
    }
    return vec2<u32>(level, u32(due));
}

// How many of `rig`'s joints (a prefix of the depth order) are sampled at joint LOD `level`;
// the rest keep their rest local transform. Twin of `Skeleton::lod_sampled_joints`.
fn lod_sampled(rig: RigDesc, level: u32) -> u32 {
    if level == 0u {
        return rig.joint_count;
    }
    return (rig.lod_sampled >> (10u * (min(level, 3u) - 1u))) & 0x3ffu;
}

// The slot list of an indirect frame lives in the box buffer from box `header.list_base` on,
// eight f32 entries per box (min.xyzw, max.xyzw), each an exact f32 of a slot: entry 0 is the
// count, entries 1..=count the listed slots (wgsl/lod_compact.wgsl writes them).
fn lod_list_entry(k: u32) -> f32 {
    let i = header.list_base + k / 8u;
    if i >= arrayLength(&bounds) {
        return -1.0;
    }
    let c = k % 8u;
    if c < 4u {
        return bounds[i].min[c];
    }
    return bounds[i].max[c - 4u];
}

// The slot workgroup `index` evaluates: `index` itself on a direct frame; on an indirect one
// the listed slot, or 0xffffffff (no slot) past the list's count.
fn lod_listed_slot(index: u32) -> u32 {
    if (header.lod_flags & HEADER_INDIRECT) == 0u {
        return index;
    }
    if f32(index) >= lod_list_entry(0u) {
        return 0xffffffffu;
    }
    return u32(lod_list_entry(index + 1u));
}

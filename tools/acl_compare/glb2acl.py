#!/usr/bin/env python3
"""Convert a skinned, animated binary glTF (.glb) into ACL 2.1's raw clip format (.acl.sjson).

Standard library only (struct/json). One clip per skin[0] + animations[0].

  glb2acl.py IN.glb OUT.acl.sjson --units cm|m

--units cm : translations (tracks and bind pose) multiplied by 100, vertex_distance (shell) 3.0,
             error_threshold (precision) 0.01  -> ACL's CMU setup (0.01 cm at 3 cm).
--units m  : data left in metres, vertex_distance 0.03, error_threshold 0.0001 (same physical 0.1 mm at 3 cm).

Bones are written in skin-joint order (checked: parents before children); bone parent is the
nearest ancestor node that is a skin joint. Bind pose = each joint node's rest TRS. Every joint
gets full rotation/translation/scale tracks, one sample per glTF key (keys must be uniform and
shared by all samplers; checked). Values are float32 from the file, written with repr() of the
exactly-converted double, so ACL reads back the identical float32.
"""
import json, struct, sys, argparse

COMP = {5126: ('f', 4), 5120: ('b', 1), 5121: ('B', 1), 5122: ('h', 2), 5123: ('H', 2), 5125: ('I', 4)}
NCOMP = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4, 'MAT4': 16}


def load_glb(path):
    d = open(path, 'rb').read()
    magic, ver, length = struct.unpack_from('<III', d, 0)
    assert magic == 0x46546C67 and ver == 2
    off = 12
    js = binc = None
    while off < length:
        clen, ctype = struct.unpack_from('<II', d, off)
        chunk = d[off + 8: off + 8 + clen]
        if ctype == 0x4E4F534A:
            js = json.loads(chunk)
        elif ctype == 0x004E4942:
            binc = chunk
        off += 8 + clen
    return js, binc


def read_accessor(js, binc, idx):
    a = js['accessors'][idx]
    bv = js['bufferViews'][a['bufferView']]
    fmt, size = COMP[a['componentType']]
    n = NCOMP[a['type']]
    assert a['componentType'] == 5126, 'only float accessors handled'
    stride = bv.get('byteStride', size * n)
    base = bv.get('byteOffset', 0) + a.get('byteOffset', 0)
    out = []
    for i in range(a['count']):
        v = struct.unpack_from('<%d%s' % (n, fmt), binc, base + i * stride)
        out.append(list(v) if n > 1 else v[0])
    return out


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def extract(path):
    """Returns dict: names, parents (index or -1), bind [(r,t,s)], times, tracks[j] = {'rotation':[...],...}."""
    js, binc = load_glb(path)
    skin = js['skins'][0]
    joints = skin['joints']
    node_parent = {}
    for i, n in enumerate(js['nodes']):
        for c in n.get('children', []):
            node_parent[c] = i
    jindex = {nd: k for k, nd in enumerate(joints)}
    parents = []
    for k, nd in enumerate(joints):
        p = node_parent.get(nd)
        while p is not None and p not in jindex:
            # non-joint ancestor: must be identity for the hierarchy to be exact in ACL
            pn = js['nodes'][p]
            assert all(key not in pn for key in ('matrix',)), 'matrix on non-joint ancestor'
            assert pn.get('rotation', [0, 0, 0, 1]) == [0, 0, 0, 1] and pn.get('translation', [0, 0, 0]) == [0, 0, 0] \
                and pn.get('scale', [1, 1, 1]) == [1, 1, 1], 'non-identity non-joint ancestor %r' % pn.get('name')
            p = node_parent.get(p)
        pi = jindex[p] if p is not None else -1
        assert pi < k, 'parent must come before child'
        parents.append(pi)
    names = [js['nodes'][nd]['name'] for nd in joints]
    bind = []
    for nd in joints:
        n = js['nodes'][nd]
        assert 'matrix' not in n
        bind.append(([f32(x) for x in n.get('rotation', [0, 0, 0, 1])],
                     [f32(x) for x in n.get('translation', [0, 0, 0])],
                     [f32(x) for x in n.get('scale', [1, 1, 1])]))
    anim = js['animations'][0]
    tracks = [dict() for _ in joints]
    times = None
    for ch in anim['channels']:
        s = anim['samplers'][ch['sampler']]
        assert s.get('interpolation', 'LINEAR') == 'LINEAR'
        t = read_accessor(js, binc, s['input'])
        if times is None:
            times = t
        assert t == times, 'samplers do not share key times'
        nd = ch['target']['node']
        if nd not in jindex:
            continue
        tracks[jindex[nd]][ch['target']['path']] = read_accessor(js, binc, s['output'])
    return dict(names=names, parents=parents, bind=bind, times=times, tracks=tracks)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('glb')
    ap.add_argument('out')
    ap.add_argument('--units', choices=['cm', 'm'], default='cm')
    ap.add_argument('--bind', choices=['rest', 'identity'], default='rest',
                    help='bind pose written to the clip (ACL default sub-track value): glTF rest TRS (default) or identity (sensitivity check)')
    args = ap.parse_args()
    c = extract(args.glb)
    times = c['times']
    ns = len(times)
    dt = (times[-1] - times[0]) / (ns - 1)
    rate = round(1.0 / dt)
    for i, t in enumerate(times):
        assert abs(t - times[0] - i / rate) < 1e-5, 'non-uniform keys at %d: %r' % (i, t)
    assert abs(times[0]) < 1e-9
    k = 100.0 if args.units == 'cm' else 1.0
    shell = 3.0 if args.units == 'cm' else 0.03
    prec = 0.01 if args.units == 'cm' else 0.0001
    R = repr
    L = []
    w = L.append
    w('version = 5')
    w('clip = { name = "%s" num_samples = %d sample_rate = %d is_binary_exact = false additive_format = "none" }'
      % (args.glb.split('/')[-1], ns, rate))
    # error_threshold in the settings block becomes every track's precision (clip_reader.h);
    # the acl_compressor tool ignores the other settings and uses get_default_compression_settings().
    w('settings = { error_threshold = %s }' % R(prec))
    w('bones = [')
    for j, name in enumerate(c['names']):
        r, t, s = c['bind'][j] if args.bind == 'rest' else ([0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
        par = c['names'][c['parents'][j]] if c['parents'][j] >= 0 else ''
        w('{ name = "%s" parent = "%s" vertex_distance = %s' % (name, par, R(shell)))
        w('  bind_rotation = [ %s ]' % ', '.join(R(x) for x in r))
        w('  bind_translation = [ %s ]' % ', '.join(R(x * k) for x in t))
        w('  bind_scale = [ %s ] }' % ', '.join(R(x) for x in s))
    w(']')
    w('tracks = [')
    for j, name in enumerate(c['names']):
        tr = c['tracks'][j]
        w('{ name = "%s"' % name)
        rot = tr.get('rotation', [c['bind'][j][0]] * ns)
        tra = tr.get('translation', [c['bind'][j][1]] * ns)
        sca = tr.get('scale', [c['bind'][j][2]] * ns)
        assert len(rot) == len(tra) == len(sca) == ns
        w('  rotations = [ ' + ' '.join('[ %s ]' % ', '.join(R(x) for x in v) for v in rot) + ' ]')
        w('  translations = [ ' + ' '.join('[ %s ]' % ', '.join(R(x * k) for x in v) for v in tra) + ' ]')
        w('  scales = [ ' + ' '.join('[ %s ]' % ', '.join(R(x) for x in v) for v in sca) + ' ]')
        w('}')
    w(']')
    open(args.out, 'w').write('\n'.join(L) + '\n')
    print('%s: %d joints, %d samples @ %d Hz, units %s, shell %g, precision %g, raw %d B'
          % (args.out, len(c['names']), ns, rate, args.units, shell, prec, len(c['names']) * ns * 40))


if __name__ == '__main__':
    main()

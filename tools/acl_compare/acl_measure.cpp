// acl_measure: compress one ACL raw clip (.acl.sjson) with ACL 2.1 default settings and report
// raw size, compressed size, ratio, ACL's max error and an exhaustive per-joint/per-sample error
// distribution, plus compression timing.
//
// Usage: acl_measure CLIP.acl.sjson [--level=automatic|medium|high|highest] [--no-preprocess|--pp=lossless]
//                    [--reps=N] [--joint=NAME --samples=a,b,c]
//
// Mirrors tools/acl_compressor (v2.1.0) default path: clip_reader, pre_process_track_list
// (recommended actions, lossy, qvvf_transform_error_metric), get_default_compression_settings(),
// qvvf_transform_error_metric. Error is reported against BOTH the pre-processed tracks (what the
// tool reports) and the original unprocessed tracks read from the file.
#include "acl/core/ansi_allocator.h"
#include "acl/core/impl/debug_track_writer.h"
#include "acl/compression/compress.h"
#include "acl/compression/pre_process.h"
#include "acl/compression/track_error.h"
#include "acl/compression/transform_error_metrics.h"
#include "acl/decompression/decompress.h"
#include "acl/io/clip_reader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace acl;

static track_array_qvvf copy_tracks(iallocator& a, const track_array_qvvf& src)
{
	track_array_qvvf out(a, src.get_num_tracks());
	for (uint32_t i = 0; i < src.get_num_tracks(); ++i)
	{
		const track_qvvf& t = src[i];
		out[i] = track_qvvf::make_copy(t.get_description(), a, &t[0], t.get_num_samples(), t.get_sample_rate());
		out[i].set_name(t.get_name());
	}
	return out;
}

// Object-space transforms of a local pose (parents precede children), via ACL's error metric.
static void to_object(const itransform_error_metric& m, const std::vector<uint32_t>& parents, const std::vector<uint32_t>& self,
	const rtm::qvvf* local, rtm::qvvf* object)
{
	itransform_error_metric::local_to_object_space_args args;
	args.dirty_transform_indices = self.data();
	args.num_dirty_transforms = uint32_t(self.size());
	args.parent_transform_indices = parents.data();
	args.local_transforms = local;
	args.num_transforms = uint32_t(self.size());
	m.local_to_object_space(args, object);
}

struct exhaustive_result { float max_err = 0.0F; uint32_t worst_bone = 0, worst_sample = 0; size_t n = 0, below = 0; std::vector<float> all; };

// Per-joint, per-sample error between reference tracks and the decompressed clip (default sub-tracks filled
// from each track's default_value = bind pose, as ACL's own error measurement does).
static exhaustive_result exhaustive_error(iallocator& a, const track_array_qvvf& ref, const compressed_tracks& ct,
	const itransform_error_metric& m, float threshold)
{
	exhaustive_result r;
	const uint32_t nt = ref.get_num_tracks();
	const uint32_t ns = ref.get_num_samples_per_track();
	const float rate = ref.get_sample_rate();
	const float duration = ref.get_finite_duration();
	std::vector<uint32_t> parents(nt), self(nt);
	for (uint32_t i = 0; i < nt; ++i) { parents[i] = ref[i].get_description().parent_index; self[i] = i; }

	decompression_context<debug_transform_decompression_settings> ctx;
	ctx.initialize(ct);
	acl_impl::debug_track_writer writer(a, track_type8::qvvf, nt);
	writer.initialize_with_defaults(ref);

	std::vector<rtm::qvvf> raw_local(nt), raw_obj(nt), lossy_obj(nt);
	for (uint32_t s = 0; s < ns; ++s)
	{
		const float t = rtm::scalar_min(float(s) / rate, duration);
		ctx.seek(t, sample_rounding_policy::nearest);
		ctx.decompress_tracks(writer);
		for (uint32_t i = 0; i < nt; ++i) raw_local[i] = ref[i][s];
		to_object(m, parents, self, raw_local.data(), raw_obj.data());
		to_object(m, parents, self, writer.tracks_typed.qvvf, lossy_obj.data());
		for (uint32_t i = 0; i < nt; ++i)
		{
			itransform_error_metric::calculate_error_args ea;
			ea.transform0 = &raw_obj[i];
			ea.transform1 = &lossy_obj[i];
			ea.construct_sphere_shell(ref[i].get_description().shell_distance);
			const float e = rtm::scalar_cast(m.calculate_error(ea));
			r.all.push_back(e);
			r.n++;
			if (e <= threshold) r.below++;
			if (e > r.max_err) { r.max_err = e; r.worst_bone = i; r.worst_sample = s; }
		}
	}
	return r;
}

int main(int argc, char** argv)
{
	if (argc < 2) { std::fprintf(stderr, "usage: %s clip.acl.sjson [--level=..] [--no-preprocess] [--reps=N] [--joint=NAME --samples=a,b]\n", argv[0]); return 1; }
	const char* path = argv[1];
	std::string level_name = "default";
	bool preprocess = true;
	bool lossless_pp = false;	// --pp=lossless reproduces the acl_compressor tool (its settings object is default-constructed => full formats => lossless policy)
	int reps = 20;
	std::string joint;
	std::vector<uint32_t> samples;
	for (int i = 2; i < argc; ++i)
	{
		if (!std::strncmp(argv[i], "--level=", 8)) level_name = argv[i] + 8;
		else if (!std::strcmp(argv[i], "--no-preprocess")) preprocess = false;
		else if (!std::strcmp(argv[i], "--pp=lossless")) lossless_pp = true;
		else if (!std::strncmp(argv[i], "--reps=", 7)) reps = std::atoi(argv[i] + 7);
		else if (!std::strncmp(argv[i], "--joint=", 8)) joint = argv[i] + 8;
		else if (!std::strncmp(argv[i], "--samples=", 10))
		{
			std::string s = argv[i] + 10; size_t p = 0;
			while (p < s.size()) { size_t q = s.find(',', p); if (q == std::string::npos) q = s.size(); samples.push_back(uint32_t(std::atoi(s.substr(p, q - p).c_str()))); p = q + 1; }
		}
	}

	ansi_allocator allocator;
	std::FILE* f = std::fopen(path, "rb");
	if (!f) { std::perror(path); return 1; }
	std::fseek(f, 0, SEEK_END); const long size = std::ftell(f); std::fseek(f, 0, SEEK_SET);
	std::vector<char> buf(size_t(size) + 1, 0);
	if (std::fread(buf.data(), 1, size_t(size), f) != size_t(size)) return 1;
	std::fclose(f);

	clip_reader reader(allocator, buf.data(), size_t(size));
	sjson_raw_clip clip;
	if (reader.get_file_type() != sjson_file_type::raw_clip || !reader.read_raw_clip(clip))
	{
		const clip_reader_error err = reader.get_error();
		std::fprintf(stderr, "read error %d at line %u col %u\n", int(err.error), err.line, err.column);
		return 1;
	}

	track_array_qvvf& tracks = clip.track_list;
	const uint32_t nt = tracks.get_num_tracks();
	const uint32_t ns = tracks.get_num_samples_per_track();
	std::printf("clip %s: %u joints, %u samples, %.3f Hz, shell %g, precision %g\n", path, nt, ns, double(tracks.get_sample_rate()),
		double(tracks[0].get_description().shell_distance), double(tracks[0].get_description().precision));

	qvvf_transform_error_metric metric;

	// World (object-space) translation check of one joint, from the raw data as ACL reads it.
	if (!joint.empty())
	{
		std::vector<uint32_t> parents(nt), self(nt);
		uint32_t ji = k_invalid_track_index;
		for (uint32_t i = 0; i < nt; ++i)
		{
			parents[i] = tracks[i].get_description().parent_index; self[i] = i;
			if (joint == tracks[i].get_name().c_str()) ji = i;
		}
		if (ji == k_invalid_track_index) { std::fprintf(stderr, "no joint %s\n", joint.c_str()); return 1; }
		std::vector<rtm::qvvf> local(nt), obj(nt);
		for (uint32_t s : samples)
		{
			for (uint32_t i = 0; i < nt; ++i) local[i] = tracks[i][s];
			to_object(metric, parents, self, local.data(), obj.data());
			std::printf("WORLD %s sample %u: %.6f %.6f %.6f\n", joint.c_str(), s, double(rtm::vector_get_x(obj[ji].translation)),
				double(rtm::vector_get_y(obj[ji].translation)), double(rtm::vector_get_z(obj[ji].translation)));
		}
	}

	track_array_qvvf original = copy_tracks(allocator, tracks);

	if (preprocess)
	{
		pre_process_settings_t pps;
		pps.actions = pre_process_actions::recommended;
		pps.precision_policy = lossless_pp ? pre_process_precision_policy::lossless : pre_process_precision_policy::lossy;
		pps.error_metric = &metric;
		const error_result r = pre_process_track_list(allocator, pps, tracks);
		if (r.any()) { std::fprintf(stderr, "pre-process failed: %s\n", r.c_str()); return 1; }
	}

	compression_settings settings = get_default_compression_settings();
	settings.error_metric = &metric;
	if (level_name != "default" && !get_compression_level(level_name.c_str(), settings.level)) { std::fprintf(stderr, "bad level\n"); return 1; }

	compressed_tracks* ct = nullptr;
	std::vector<double> times;
	for (int rep = 0; rep < std::max(1, reps); ++rep)
	{
		if (ct) { allocator.deallocate(ct, ct->get_size()); ct = nullptr; }
		output_stats stats;
		const auto t0 = std::chrono::steady_clock::now();
		const error_result r = compress_track_list(allocator, tracks, settings, ct, stats);
		const auto t1 = std::chrono::steady_clock::now();
		if (r.any()) { std::fprintf(stderr, "compress failed: %s\n", r.c_str()); return 1; }
		times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
	}
	std::sort(times.begin(), times.end());

	const size_t raw_size = size_t(nt) * ns * 10 * sizeof(float);
	const uint32_t csize = ct->get_size();
	std::printf("level %s%s\n", level_name.c_str(), level_name == "default" ? " (get_default_compression_settings: automatic)" : "");
	std::printf("preprocess %s\n", preprocess ? (lossless_pp ? "recommended (lossless, as acl_compressor tool)" : "recommended (lossy)") : "none");
	std::printf("raw_size %zu\ncompressed_size %u\nratio %.4f\n", raw_size, csize, double(raw_size) / double(csize));
	std::printf("compress_ms min %.3f median %.3f max %.3f over %zu runs\n", times.front(), times[times.size() / 2], times.back(), times.size());

	decompression_context<debug_transform_decompression_settings> ctx;
	ctx.initialize(*ct);
	const track_error e_pp = calculate_compression_error(allocator, tracks, ctx, metric);
	const track_error e_orig = calculate_compression_error(allocator, original, ctx, metric);
	std::printf("acl_max_error_vs_preprocessed %.6g (track %u %s, t=%.4f)\n", double(e_pp.error), e_pp.index, tracks[e_pp.index].get_name().c_str(), double(e_pp.sample_time));
	std::printf("acl_max_error_vs_original %.6g (track %u %s, t=%.4f)\n", double(e_orig.error), e_orig.index, original[e_orig.index].get_name().c_str(), double(e_orig.sample_time));

	const float thr = tracks[0].get_description().precision;
	exhaustive_result ex = exhaustive_error(allocator, original, *ct, metric, thr);
	std::sort(ex.all.begin(), ex.all.end());
	const float p99 = ex.all[size_t(0.99 * double(ex.all.size() - 1))];
	std::printf("exhaustive_vs_original: max %.6g (bone %u sample %u), p99 %.6g, below_threshold(%g) %.3f%% of %zu\n",
		double(ex.max_err), ex.worst_bone, ex.worst_sample, double(p99), double(thr), 100.0 * double(ex.below) / double(ex.n), ex.n);

	allocator.deallocate(ct, ct->get_size());
	return 0;
}

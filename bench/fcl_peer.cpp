// SPDX-License-Identifier: MIT
// The FCL peer of the approx-mode benchmark: answers the same pose file as
// vkcollide with FCL's boolean collision query between two BVHModel<OBBRSS>
// meshes, on all cores, and prints one JSON object (fields in README.md).
//
// This is the baseline the project's speed targets name: "FCL 0.7
// BVHModel<OBBRSS>, boolean query, on all cores". FCL treats meshes as
// surfaces: a mesh wholly inside the other is not a collision for it.
//
//   fcl_peer A B --poses FILE [--repeat R] [--threads T] [--count N]
//            [--answers FILE] [--out FILE] [--name NAME]

#include "fcl_common.hpp"

#include <fcl/config.h>

#include <assimp/version.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace {

using namespace bench;

// Answers every pose once with `threads` workers. The partition is dynamic
// (an atomic cursor over blocks of poses) because colliding poses cost more
// than separated ones and they are not spread evenly.
void answer_all(const Model &a, const Model &b, const std::vector<fcl::Transform3d> &poses, unsigned threads,
                std::vector<unsigned char> &answers)
{
	const size_t block = 64;
	std::atomic<size_t> cursor{0};
	const fcl::Transform3d identity = fcl::Transform3d::Identity();
	auto work = [&]() {
		// One request and result per thread; the models are only read.
		fcl::CollisionRequestd request(1, false); // num_max_contacts = 1, enable_contact = false
		fcl::CollisionResultd result;
		for (;;) {
			size_t begin = cursor.fetch_add(block, std::memory_order_relaxed);
			if (begin >= poses.size())
				break;
			size_t end = std::min(begin + block, poses.size());
			for (size_t i = begin; i < end; i++) {
				result.clear();
				fcl::collide(&a, identity, &b, poses[i], request, result);
				answers[i] = result.isCollision() ? 1 : 0;
			}
		}
	};
	std::vector<std::thread> pool;
	for (unsigned t = 1; t < threads; t++)
		pool.emplace_back(work);
	work();
	for (std::thread &t : pool)
		t.join();
}

void usage()
{
	std::fprintf(stderr,
	             "usage: fcl_peer A B --poses FILE [--repeat R] [--threads T] [--count N]\n"
	             "                [--answers FILE] [--out FILE] [--name NAME]\n"
	             "  A, B         meshes (any format Assimp reads); poses place B in A's frame\n"
	             "  --poses      pose file: one 'qw qx qy qz tx ty tz' per line\n"
	             "  --repeat     timed passes over all poses (default 5); the median is reported\n"
	             "  --threads    worker threads (default: all hardware threads)\n"
	             "  --count      use only the first N poses\n"
	             "  --answers    write one 0/1 per pose (first pass)\n"
	             "  --out        write the JSON there instead of stdout\n"
	             "  --name       label of the pair (default A-B from the file names)\n");
	std::exit(2);
}

} // namespace

int main(int argc, char **argv)
{
	program_name = "fcl_peer";
	PeerArgs args = parse_peer_args(argc, argv, usage);

	Mesh mesh_a = load_mesh(args.positional[0]);
	Mesh mesh_b = load_mesh(args.positional[1]);
	if (args.name.empty())
		args.name = mesh_a.name + "-" + mesh_b.name;

	// Tree builds are timed apart from the queries: the median of `repeat`
	// builds each, the last one kept.
	std::shared_ptr<Model> model_a, model_b;
	std::vector<double> build_a, build_b;
	for (int r = 0; r < args.repeat; r++) {
		auto start = std::chrono::steady_clock::now();
		model_a = build_model(mesh_a);
		build_a.push_back(seconds_since(start));
		start = std::chrono::steady_clock::now();
		model_b = build_model(mesh_b);
		build_b.push_back(seconds_since(start));
	}

	std::vector<fcl::Transform3d> poses;
	for (const Pose &p : read_poses(args.poses_path, args.count))
		poses.push_back(to_transform(p));
	if (poses.empty())
		die(args.poses_path + ": no poses");

	// Every pass answers every pose; the answers must not change between
	// passes (FCL is deterministic), which also checks the threading.
	std::vector<unsigned char> answers(poses.size()), first;
	std::vector<double> seconds;
	size_t collide_count = 0;
	for (int r = 0; r < args.repeat; r++) {
		auto start = std::chrono::steady_clock::now();
		answer_all(*model_a, *model_b, poses, args.threads, answers);
		seconds.push_back(seconds_since(start));
		if (r == 0) {
			first = answers;
			collide_count = size_t(std::count(answers.begin(), answers.end(), 1));
		} else if (answers != first) {
			die("answers changed between passes");
		}
	}

	if (!args.answers_path.empty())
		write_answers(args.answers_path, first);

	double med = median(seconds);
	char numbers[512];
	std::snprintf(numbers, sizeof numbers,
	              "  \"poses\": %zu,\n  \"threads\": %u,\n  \"repeat\": %d,\n"
	              "  \"median_seconds\": %.6g,\n  \"median_pairs_per_second\": %.6g,\n"
	              "  \"collide_count\": %zu,\n  \"collide_fraction\": %.6f,\n",
	              poses.size(), args.threads, args.repeat, med, double(poses.size()) / med, collide_count,
	              double(collide_count) / double(poses.size()));
	auto mesh_json = [](const Mesh &m, const std::vector<double> &build) {
		char buf[160];
		std::snprintf(buf, sizeof buf, ", \"vertices\": %zu, \"triangles\": %zu, \"bvh_build_median_seconds\": %.6g}",
		              m.vertices.size(), m.triangles.size(), median(build));
		return "{\"name\": " + json_string(m.name) + ", \"path\": " + json_string(m.path) + buf;
	};
	std::string json = "{\n  \"peer\": \"fcl\",\n  \"fcl_version\": " + json_string(FCL_VERSION) +
	                   ",\n  \"assimp_version\": \"" + std::to_string(aiGetVersionMajor()) + "." +
	                   std::to_string(aiGetVersionMinor()) + "." + std::to_string(aiGetVersionPatch()) +
	                   "\",\n  \"bounding_volume\": \"OBBRSS\",\n  \"query\": \"boolean (num_max_contacts 1, enable_contact false)\",\n" +
	                   "  \"pair\": " + json_string(args.name) + ",\n  \"mesh_a\": " + mesh_json(mesh_a, build_a) +
	                   ",\n  \"mesh_b\": " + mesh_json(mesh_b, build_b) + ",\n  \"poses_file\": " +
	                   json_string(args.poses_path) + ",\n" + numbers + "  \"repeat_seconds\": " + json_list(seconds) + "\n}\n";
	write_output(args.out_path, json);
	return 0;
}

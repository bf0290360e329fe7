// SPDX-License-Identifier: MIT
// Moves poses to the edge of contact: the poses where approx mode's cube-map
// sampling is most likely to be wrong, and which random poses rarely hit.
//
// For each pose of the input file (from gen_poses.py) the rotation is kept
// and B's centre is moved along the same direction from A's centre (centres
// and radii as in gen_poses.py) to the first contact met coming from outside,
// then shifted by a uniform amount in [-band, +band] * (rA + rB) along that
// direction: about half the poses end slightly inside, half slightly apart.
//
// The first contact is found with FCL's boolean query (surfaces): stepping
// inward from where the bounding spheres separate, in steps of (rA + rB) / 128,
// then bisecting the last step 40 times. A feature thinner than a step can be
// stepped over; such a pose lands at a deeper contact, still a contact. A pose
// whose direction meets no contact at all (one surface inside the other all
// the way) is dropped and counted.
//
//   near_contact A B --poses IN --out OUT [--band 0.01] [--seed 1] [--threads T]

#include "fcl_common.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

namespace {

using namespace bench;

struct Bounds {
	fcl::Vector3d centre;
	double radius;
};

// The same definition as gen_poses.py: the centre of the bounding box and the
// largest distance from it to a vertex.
Bounds bounds_of(const Mesh &m)
{
	fcl::Vector3d lo = m.vertices[0], hi = m.vertices[0];
	for (const fcl::Vector3d &v : m.vertices) {
		lo = lo.cwiseMin(v);
		hi = hi.cwiseMax(v);
	}
	Bounds b{0.5 * (lo + hi), 0.0};
	for (const fcl::Vector3d &v : m.vertices)
		b.radius = std::max(b.radius, (v - b.centre).norm());
	return b;
}

// splitmix64, as in gen_poses.py.
double uniform01(uint64_t &state)
{
	state += 0x9E3779B97F4A7C15ull;
	uint64_t z = state;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return double((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

void usage()
{
	std::fprintf(stderr,
	             "usage: near_contact A B --poses IN --out OUT [--band B] [--seed S] [--threads T]\n"
	             "  --band     half-width of the shift about the contact, in units of rA + rB (default 0.01)\n"
	             "  --seed     splitmix64 seed of the shifts (default 1)\n"
	             "  --threads  worker threads (default: all hardware threads)\n");
	std::exit(2);
}

} // namespace

int main(int argc, char **argv)
{
	program_name = "near_contact";
	std::vector<std::string> positional;
	std::string in_path, out_path;
	double band = 0.01;
	uint64_t seed = 1;
	unsigned threads = 0;
	for (int i = 1; i < argc; i++) {
		std::string arg = argv[i];
		auto value = [&]() -> std::string {
			if (i + 1 >= argc)
				usage();
			return argv[++i];
		};
		if (arg == "--poses")
			in_path = value();
		else if (arg == "--out")
			out_path = value();
		else if (arg == "--band")
			band = std::atof(value().c_str());
		else if (arg == "--seed")
			seed = std::strtoull(value().c_str(), nullptr, 10);
		else if (arg == "--threads")
			threads = unsigned(std::atoi(value().c_str()));
		else if (arg.size() > 1 && arg[0] == '-')
			usage();
		else
			positional.push_back(arg);
	}
	if (positional.size() != 2 || in_path.empty() || out_path.empty() || !(band >= 0))
		usage();
	if (threads == 0)
		threads = std::max(1u, std::thread::hardware_concurrency());

	Mesh mesh_a = load_mesh(positional[0]), mesh_b = load_mesh(positional[1]);
	std::shared_ptr<Model> model_a = build_model(mesh_a), model_b = build_model(mesh_b);
	Bounds ba = bounds_of(mesh_a), bb = bounds_of(mesh_b);
	const double span = ba.radius + bb.radius;
	std::vector<Pose> poses = read_poses(in_path, SIZE_MAX);

	// Shifts drawn in file order, so the output does not depend on threads.
	std::vector<double> shift(poses.size());
	uint64_t state = seed;
	for (double &s : shift)
		s = band * span * (2.0 * uniform01(state) - 1.0);

	std::vector<Pose> out(poses.size());
	std::vector<unsigned char> kept(poses.size(), 0);
	std::atomic<size_t> cursor{0};
	auto work = [&]() {
		fcl::CollisionRequestd request(1, false);
		fcl::CollisionResultd result;
		const fcl::Transform3d identity = fcl::Transform3d::Identity();
		for (;;) {
			size_t i = cursor.fetch_add(1, std::memory_order_relaxed);
			if (i >= poses.size())
				break;
			fcl::Transform3d tf = to_transform(poses[i]);
			fcl::Vector3d rcb = tf.linear() * bb.centre;
			fcl::Vector3d offset = tf.translation() + rcb - ba.centre;
			double length = offset.norm();
			fcl::Vector3d d = length > 0 ? fcl::Vector3d(offset / length) : fcl::Vector3d(1, 0, 0);
			auto collides = [&](double s) {
				tf.translation() = ba.centre + s * d - rcb;
				result.clear();
				fcl::collide(model_a.get(), identity, model_b.get(), tf, request, result);
				return result.isCollision();
			};
			// Beyond rA + rB the bounding spheres are apart: surely free.
			double free_s = span * 1.001, step = span / 128, hit_s = -1;
			for (double s = free_s - step; s >= 0; s -= step) {
				if (collides(s)) {
					hit_s = s;
					break;
				}
				free_s = s;
			}
			if (hit_s < 0 && collides(0.0))
				hit_s = 0.0;
			if (hit_s < 0)
				continue;
			for (int k = 0; k < 40; k++) {
				double mid = 0.5 * (hit_s + free_s);
				(collides(mid) ? hit_s : free_s) = mid;
			}
			double s = std::max(0.0, 0.5 * (hit_s + free_s) + shift[i]);
			fcl::Vector3d t = ba.centre + s * d - rcb;
			out[i] = poses[i];
			out[i][4] = float(t.x());
			out[i][5] = float(t.y());
			out[i][6] = float(t.z());
			kept[i] = 1;
		}
	};
	std::vector<std::thread> pool;
	for (unsigned t = 1; t < threads; t++)
		pool.emplace_back(work);
	work();
	for (std::thread &t : pool)
		t.join();

	FILE *f = std::fopen(out_path.c_str(), "w");
	if (!f)
		die(out_path + ": " + std::strerror(errno));
	size_t written = 0;
	for (size_t i = 0; i < out.size(); i++) {
		if (!kept[i])
			continue;
		const Pose &p = out[i];
		std::fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
		written++;
	}
	if (std::fclose(f) != 0)
		die(out_path + ": write failed");
	std::fprintf(stderr, "{\"poses_in\": %zu, \"poses_out\": %zu, \"dropped_no_contact\": %zu, \"band\": %g, \"seed\": %llu}\n",
	             poses.size(), written, poses.size() - written, band, (unsigned long long)seed);
	return 0;
}

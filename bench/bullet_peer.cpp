// SPDX-License-Identifier: MIT
// A second peer of the approx-mode benchmark: answers the same pose file as
// fcl_peer with Bullet 3.24's GImpact concave-concave collision, on all
// cores, and prints one JSON object with fcl_peer's fields where they apply
// (bench/README.md) plus "peer": "bullet", "bullet_version", "margin",
// "precision" and the counters below.
//
// Each mesh is a static btGImpactMeshShape over a btTriangleIndexVertexArray
// (one part, updateBound() builds its quantized box tree). A query wraps two
// btCollisionObjects (A at the identity, B at the pose) in
// btCollisionObjectWrapper and runs the btGImpactCollisionAlgorithm that the
// btCollisionDispatcher finds for them (registered with
// btGImpactCollisionAlgorithm::registerAlgorithm) through processCollision
// into a btManifoldResult. For trimesh-trimesh GImpact runs
// collide_sat_triangles: the two box trees give candidate triangle pairs,
// and each pair is clipped (btPrimitiveTriangle::
// find_triangle_collision_clip_method) into contact points whose distance is
// -(penetration depth), depth measured from the triangles' planes and
// including both triangles' margins.
//
// What counts as a collision: after processCollision, the manifold holds at
// least one contact point with getDistance() <= 0. (The manifold keeps at
// most 4 points and recomputes each distance from its stored points when
// the algorithm refreshes it; the result object also sees every point the
// algorithm reports: `reported_contact_points` counts them and
// `manifold_contact_points` what the manifolds kept, and
// `reported_not_in_manifold` the poses where a point with distance <= 0 was
// reported but none is left in the manifold; all three over the first pass.)
//
// GImpact has no boolean query: it generates the contacts of every
// intersecting triangle pair before answering, where FCL's boolean query
// stops at the first one, so colliding poses cost Bullet far more than
// separated ones.
//
// The triangle margin is 0 by default (--margin): GImpact's own default for
// a mesh part is 0.1, which on the benchmark's unit-sized meshes would make
// every pose within ~0.2 of contact collide. Bullet is built in single
// precision by Debian (btScalar = float): the vertices are float already,
// the rotation is computed in double from the float pose, as fcl_peer does,
// and then rounded to float.
//
// Bullet objects are not thread-safe (a GImpact mesh part even locks its
// vertex arrays through a counter it mutates while colliding), so every
// thread owns its configuration, dispatcher, algorithm, both shapes and both
// collision objects; only the vertex and index arrays are shared, read-only.
//
//   bullet_peer A B --poses FILE [--repeat R] [--threads T] [--count N]
//               [--answers FILE] [--out FILE] [--name NAME] [--margin M]

#include <btBulletCollisionCommon.h>
#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/version.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "peer_common.hpp"

namespace {

using namespace bench;

// ---- Meshes: peer_common.hpp's import, in Bullet's types -------------

struct Mesh {
	std::string path, name;
	std::vector<btScalar> vertices; // x y z per vertex, float values
	std::vector<int> indices;       // 3 per triangle
	size_t vertex_count() const { return vertices.size() / 3; }
	size_t triangle_count() const { return indices.size() / 3; }
};

Mesh load_mesh(const std::string &path)
{
	ImportedMesh in = import_mesh(path);
	if (in.vertices.size() > size_t(INT32_MAX))
		die(path + ": too many vertices for Bullet's int indices");
	Mesh mesh;
	mesh.path = in.path;
	mesh.name = in.name;
	for (const auto &v : in.vertices)
		mesh.vertices.insert(mesh.vertices.end(), {btScalar(v[0]), btScalar(v[1]), btScalar(v[2])});
	for (const auto &t : in.triangles)
		mesh.indices.insert(mesh.indices.end(), {int(t[0]), int(t[1]), int(t[2])});
	return mesh;
}

// The float pose widened to double, the quaternion normalised and turned
// into a matrix in double (as fcl_peer does with Eigen), then rounded to
// Bullet's float. Bullet's btQuaternion takes x, y, z, w: build the matrix
// here instead, to leave no doubt about the order.
btTransform to_transform(const Pose &v)
{
	double w = v[0], x = v[1], y = v[2], z = v[3];
	double n = std::sqrt(w * w + x * x + y * y + z * z);
	w /= n, x /= n, y /= n, z /= n;
	btMatrix3x3 r(btScalar(1 - 2 * (y * y + z * z)), btScalar(2 * (x * y - w * z)), btScalar(2 * (x * z + w * y)),
	              btScalar(2 * (x * y + w * z)), btScalar(1 - 2 * (x * x + z * z)), btScalar(2 * (y * z - w * x)),
	              btScalar(2 * (x * z - w * y)), btScalar(2 * (y * z + w * x)), btScalar(1 - 2 * (x * x + y * y)));
	return btTransform(r, btVector3(v[4], v[5], v[6]));
}

// ---- Bullet shapes and per-thread query state --------------------------

// A static GImpact trimesh over the mesh's arrays (not copied: the mesh
// outlives the shape).
struct Shape {
	std::unique_ptr<btTriangleIndexVertexArray> array;
	std::unique_ptr<btGImpactMeshShape> shape;
};

Shape build_shape(const Mesh &mesh, btScalar margin)
{
	Shape s;
	s.array = std::make_unique<btTriangleIndexVertexArray>(
		int(mesh.triangle_count()), const_cast<int *>(mesh.indices.data()), int(3 * sizeof(int)),
		int(mesh.vertex_count()), const_cast<btScalar *>(mesh.vertices.data()), int(3 * sizeof(btScalar)));
	s.shape = std::make_unique<btGImpactMeshShape>(s.array.get());
	s.shape->setMargin(margin);
	s.shape->updateBound(); // builds each part's quantized box tree
	return s;
}

// The manifold result, also noting whether the algorithm reported any point
// with distance <= 0 before the manifold merged and refreshed its points.
struct Result : btManifoldResult {
	bool reported = false;
	size_t points = 0; // every point reported, whatever its distance
	Result(const btCollisionObjectWrapper *a, const btCollisionObjectWrapper *b) : btManifoldResult(a, b) {}
	void addContactPoint(const btVector3 &normal, const btVector3 &point, btScalar depth) override
	{
		points++;
		if (depth <= 0)
			reported = true;
		btManifoldResult::addContactPoint(normal, point, depth);
	}
};

struct Worker {
	btDefaultCollisionConfiguration configuration;
	btCollisionDispatcher dispatcher{&configuration};
	btDispatcherInfo info;
	Shape a, b;
	btCollisionObject object_a, object_b;
	btCollisionAlgorithm *algorithm = nullptr;
	size_t reported_not_in_manifold = 0; // of the last pass
	size_t contact_points = 0;           // in the manifolds of the last pass
	size_t reported_points = 0;          // reported by the algorithm, last pass

	Worker(const Mesh &mesh_a, const Mesh &mesh_b, btScalar margin)
	{
		btGImpactCollisionAlgorithm::registerAlgorithm(&dispatcher);
		a = build_shape(mesh_a, margin);
		b = build_shape(mesh_b, margin);
		object_a.setCollisionShape(a.shape.get());
		object_b.setCollisionShape(b.shape.get());
		object_a.setWorldTransform(btTransform::getIdentity());
		object_b.setWorldTransform(btTransform::getIdentity());
		btCollisionObjectWrapper wa(nullptr, a.shape.get(), &object_a, object_a.getWorldTransform(), -1, -1);
		btCollisionObjectWrapper wb(nullptr, b.shape.get(), &object_b, object_b.getWorldTransform(), -1, -1);
		// The algorithm a collision world would keep for this pair across
		// frames; processCollision starts by releasing the last manifold.
		algorithm = dispatcher.findAlgorithm(&wa, &wb, nullptr, BT_CONTACT_POINT_ALGORITHMS);
		if (!algorithm || !dynamic_cast<btGImpactCollisionAlgorithm *>(algorithm))
			die("the dispatcher did not choose btGImpactCollisionAlgorithm for two GImpact meshes");
	}
	~Worker()
	{
		algorithm->~btCollisionAlgorithm(); // releases its manifold
		dispatcher.freeCollisionAlgorithm(algorithm);
	}
	Worker(const Worker &) = delete;
	Worker &operator=(const Worker &) = delete;

	bool collide(const btTransform &pose)
	{
		object_b.setWorldTransform(pose);
		btCollisionObjectWrapper wa(nullptr, a.shape.get(), &object_a, object_a.getWorldTransform(), -1, -1);
		btCollisionObjectWrapper wb(nullptr, b.shape.get(), &object_b, pose, -1, -1);
		Result result(&wa, &wb);
		algorithm->processCollision(&wa, &wb, info, &result);
		bool hit = false;
		if (const btPersistentManifold *m = result.getPersistentManifold()) {
			int n = m->getNumContacts();
			contact_points += size_t(n);
			for (int i = 0; i < n && !hit; i++)
				hit = m->getContactPoint(i).getDistance() <= 0;
		}
		reported_points += result.points;
		if (result.reported && !hit)
			reported_not_in_manifold++;
		return hit;
	}
};

// Answers every pose once with one thread per worker. The partition is
// dynamic (an atomic cursor over blocks of poses), as in fcl_peer.
void answer_all(std::vector<std::unique_ptr<Worker>> &workers, const std::vector<btTransform> &poses,
                std::vector<unsigned char> &answers)
{
	const size_t block = 64;
	std::atomic<size_t> cursor{0};
	auto work = [&](Worker &w) {
		w.reported_not_in_manifold = 0;
		w.contact_points = 0;
		w.reported_points = 0;
		for (;;) {
			size_t begin = cursor.fetch_add(block, std::memory_order_relaxed);
			if (begin >= poses.size())
				break;
			size_t end = std::min(begin + block, poses.size());
			for (size_t i = begin; i < end; i++)
				answers[i] = w.collide(poses[i]) ? 1 : 0;
		}
	};
	std::vector<std::thread> pool;
	for (size_t t = 1; t < workers.size(); t++)
		pool.emplace_back(work, std::ref(*workers[t]));
	work(*workers[0]);
	for (std::thread &t : pool)
		t.join();
}

void usage()
{
	std::fprintf(stderr,
	             "usage: bullet_peer A B --poses FILE [--repeat R] [--threads T] [--count N]\n"
	             "                   [--answers FILE] [--out FILE] [--name NAME] [--margin M]\n"
	             "  A, B         meshes (any format Assimp reads); poses place B in A's frame\n"
	             "  --poses      pose file: one 'qw qx qy qz tx ty tz' per line\n"
	             "  --repeat     timed passes over all poses (default 5); the median is reported\n"
	             "  --threads    worker threads (default: all hardware threads)\n"
	             "  --count      use only the first N poses\n"
	             "  --answers    write one 0/1 per pose (first pass)\n"
	             "  --out        write the JSON there instead of stdout\n"
	             "  --name       label of the pair (default A-B from the file names)\n"
	             "  --margin     GImpact triangle margin of both meshes (default 0)\n");
	std::exit(2);
}

} // namespace

int main(int argc, char **argv)
{
	program_name = "bullet_peer";
	double margin = 0.0;
	PeerArgs args = parse_peer_args(argc, argv, usage, [&](const std::string &arg, const std::function<std::string()> &value) {
		if (arg != "--margin")
			return false;
		margin = std::strtod(value().c_str(), nullptr);
		return true;
	});
	if (!(margin >= 0))
		usage();

	Mesh mesh_a = load_mesh(args.positional[0]);
	Mesh mesh_b = load_mesh(args.positional[1]);
	if (args.name.empty())
		args.name = mesh_a.name + "-" + mesh_b.name;

	// Shape builds are timed apart from the queries: the median of `repeat`
	// builds of each (vertex array view, btGImpactMeshShape, margin,
	// updateBound), single-threaded, before the workers build their own.
	std::vector<double> build_a, build_b;
	for (int r = 0; r < args.repeat; r++) {
		auto start = std::chrono::steady_clock::now();
		Shape sa = build_shape(mesh_a, btScalar(margin));
		build_a.push_back(seconds_since(start));
		start = std::chrono::steady_clock::now();
		Shape sb = build_shape(mesh_b, btScalar(margin));
		build_b.push_back(seconds_since(start));
	}

	std::vector<std::unique_ptr<Worker>> workers;
	for (unsigned t = 0; t < args.threads; t++)
		workers.push_back(std::make_unique<Worker>(mesh_a, mesh_b, btScalar(margin)));

	std::vector<btTransform> poses;
	for (const Pose &p : read_poses(args.poses_path, args.count))
		poses.push_back(to_transform(p));
	if (poses.empty())
		die(args.poses_path + ": no poses");

	// Every pass answers every pose; the answers must not change between
	// passes, which also checks the threading.
	std::vector<unsigned char> answers(poses.size()), first;
	std::vector<double> seconds;
	size_t collide_count = 0, reported_not_in_manifold = 0, contact_points = 0, reported_points = 0;
	for (int r = 0; r < args.repeat; r++) {
		auto start = std::chrono::steady_clock::now();
		answer_all(workers, poses, answers);
		seconds.push_back(seconds_since(start));
		if (r == 0) {
			first = answers;
			collide_count = size_t(std::count(answers.begin(), answers.end(), 1));
			for (const auto &w : workers) {
				reported_not_in_manifold += w->reported_not_in_manifold;
				contact_points += w->contact_points;
				reported_points += w->reported_points;
			}
		} else if (answers != first) {
			die("answers changed between passes");
		}
	}

	if (!args.answers_path.empty())
		write_answers(args.answers_path, first);

	double med = median(seconds);
	char numbers[768];
	std::snprintf(numbers, sizeof numbers,
	              "  \"poses\": %zu,\n  \"threads\": %u,\n  \"repeat\": %d,\n"
	              "  \"median_seconds\": %.6g,\n  \"median_pairs_per_second\": %.6g,\n"
	              "  \"collide_count\": %zu,\n  \"collide_fraction\": %.6f,\n"
	              "  \"reported_contact_points\": %zu,\n  \"manifold_contact_points\": %zu,\n"
	              "  \"reported_not_in_manifold\": %zu,\n",
	              poses.size(), args.threads, args.repeat, med, double(poses.size()) / med, collide_count,
	              double(collide_count) / double(poses.size()), reported_points, contact_points,
	              reported_not_in_manifold);
	auto mesh_json = [](const Mesh &m, const std::vector<double> &build) {
		char buf[160];
		std::snprintf(buf, sizeof buf, ", \"vertices\": %zu, \"triangles\": %zu, \"bvh_build_median_seconds\": %.6g}",
		              m.vertex_count(), m.triangle_count(), median(build));
		return "{\"name\": " + json_string(m.name) + ", \"path\": " + json_string(m.path) + buf;
	};
	char margin_text[64];
	std::snprintf(margin_text, sizeof margin_text, "%.9g", margin);
	int version = btGetVersion();
	std::string json =
		"{\n  \"peer\": \"bullet\",\n  \"bullet_version\": \"" + std::to_string(version / 100) + "." +
		std::to_string(version % 100) + "\",\n  \"precision\": \"" + (btIsDoublePrecision() ? "double" : "single") +
		"\",\n  \"assimp_version\": \"" + std::to_string(aiGetVersionMajor()) + "." +
		std::to_string(aiGetVersionMinor()) + "." + std::to_string(aiGetVersionPatch()) +
		"\",\n  \"shape\": \"btGImpactMeshShape (quantized box tree)\",\n  \"margin\": " + margin_text +
		",\n  \"query\": \"btGImpactCollisionAlgorithm::processCollision; collides when the manifold holds a point with distance <= 0\",\n" +
		"  \"pair\": " + json_string(args.name) + ",\n  \"mesh_a\": " + mesh_json(mesh_a, build_a) +
		",\n  \"mesh_b\": " + mesh_json(mesh_b, build_b) + ",\n  \"poses_file\": " + json_string(args.poses_path) +
		",\n" + numbers + "  \"repeat_seconds\": " + json_list(seconds) + "\n}\n";
	workers.clear();
	write_output(args.out_path, json);
	return 0;
}

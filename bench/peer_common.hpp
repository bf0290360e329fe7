// SPDX-License-Identifier: MIT
// What every benchmark peer shares, whatever library it drives: mesh import
// through Assimp's C++ API (the geometry the CLI's importer gives vkcollide,
// as the float values it receives), the CLI's pose format, medians and JSON
// output. Library-specific headers (fcl_common.hpp) build on this one.
#pragma once

#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace bench {

// Set by main; prefixes error messages.
inline const char *program_name = "bench";

// A mesh as imported: x y z floats per vertex and three indices per triangle.
struct ImportedMesh {
	std::string path, name;
	std::vector<std::array<float, 3>> vertices;
	std::vector<std::array<uint32_t, 3>> triangles;
};

[[noreturn]] inline void die(const std::string &message)
{
	std::fprintf(stderr, "%s: %s\n", program_name, message.c_str());
	std::exit(1);
}

inline std::string stem(const std::string &path)
{
	size_t slash = path.find_last_of('/');
	std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
	size_t dot = base.find_last_of('.');
	return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

// A node's world transform, row-major 3 x 4, in double: x' = m[r][0..2] . x + m[r][3].
using Affine = std::array<std::array<double, 4>, 3>;

// parent * local: local applies first (as src/cli/import.c composes them).
inline Affine affine_mul(const Affine &parent, const aiMatrix4x4 &t)
{
	const double local[3][4] = {{t.a1, t.a2, t.a3, t.a4}, {t.b1, t.b2, t.b3, t.b4}, {t.c1, t.c2, t.c3, t.c4}};
	Affine r;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++) {
			double s = parent[i][0] * local[0][j] + parent[i][1] * local[1][j] + parent[i][2] * local[2][j];
			r[i][j] = j == 3 ? s + parent[i][3] : s;
		}
	return r;
}

// Every sub-mesh in world space (node transforms applied), triangles only:
// the same geometry the CLI's importer hands vkcollide, to the bit. Like
// src/cli/import.c, the transforms are composed and applied in double and
// each coordinate rounded to float once; vertices are not joined
// (Assimp's JoinIdenticalVertices would also merge positions within 1e-5
// of each other, moving the surface), which the peers do not need.
inline void append_node(const aiScene *scene, const aiNode *node, const Affine &parent, ImportedMesh &out)
{
	Affine world = affine_mul(parent, node->mTransformation);
	for (unsigned m = 0; m < node->mNumMeshes; m++) {
		const aiMesh *mesh = scene->mMeshes[node->mMeshes[m]];
		size_t base = out.vertices.size();
		for (unsigned v = 0; v < mesh->mNumVertices; v++) {
			const aiVector3D &s = mesh->mVertices[v];
			const double x = s.x, y = s.y, z = s.z;
			std::array<float, 3> p;
			for (int r = 0; r < 3; r++)
				p[r] = float(world[r][0] * x + world[r][1] * y + world[r][2] * z + world[r][3]);
			out.vertices.push_back(p); // as vkcollide receives them
		}
		for (unsigned f = 0; f < mesh->mNumFaces; f++) {
			const aiFace &face = mesh->mFaces[f];
			if (face.mNumIndices != 3)
				continue; // points and lines have no volume or area to collide
			out.triangles.push_back({uint32_t(base + face.mIndices[0]), uint32_t(base + face.mIndices[1]),
			                         uint32_t(base + face.mIndices[2])});
		}
	}
	for (unsigned c = 0; c < node->mNumChildren; c++)
		append_node(scene, node->mChildren[c], world, out);
}

inline ImportedMesh import_mesh(const std::string &path)
{
	Assimp::Importer importer;
	// The CLI's settings: no meshes made up from skeletons, the same steps.
	importer.SetPropertyInteger(AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
	const aiScene *scene = importer.ReadFile(path, aiProcess_Triangulate | aiProcess_SortByPType);
	if (!scene || !scene->mRootNode)
		die(path + ": Assimp cannot read it: " + importer.GetErrorString());
	ImportedMesh mesh;
	mesh.path = path;
	mesh.name = stem(path);
	append_node(scene, scene->mRootNode, Affine{{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}}, mesh);
	if (mesh.triangles.empty())
		die(path + ": it holds no triangles");
	return mesh;
}

// Poses in the CLI's format, as the float values vkcollide receives:
// qw qx qy qz tx ty tz. Blank lines and '#' comments are skipped.
using Pose = std::array<float, 7>;

inline std::vector<Pose> read_poses(const std::string &path, size_t limit)
{
	FILE *f = std::fopen(path.c_str(), "r");
	if (!f)
		die(path + ": " + std::strerror(errno));
	std::vector<Pose> poses;
	char line[512];
	size_t line_number = 0;
	while (poses.size() < limit && std::fgets(line, sizeof line, f)) {
		line_number++;
		const char *p = line + std::strspn(line, " \t\r\n");
		if (*p == '\0' || *p == '#')
			continue;
		Pose v;
		if (std::sscanf(p, "%f %f %f %f %f %f %f", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
			die(path + ":" + std::to_string(line_number) + ": expected qw qx qy qz tx ty tz");
		if (v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0)
			die(path + ":" + std::to_string(line_number) + ": zero quaternion");
		poses.push_back(v);
	}
	std::fclose(f);
	return poses;
}

inline double seconds_since(std::chrono::steady_clock::time_point start)
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline std::string json_string(const std::string &s)
{
	std::string out = "\"";
	for (unsigned char c : s) {
		if (c == '"' || c == '\\') {
			out += '\\';
			out += char(c);
		} else if (c < 0x20) {
			char buf[8];
			std::snprintf(buf, sizeof buf, "\\u%04x", c);
			out += buf;
		} else {
			out += char(c);
		}
	}
	return out + "\"";
}

inline std::string json_list(const std::vector<double> &v)
{
	std::string out = "[";
	for (size_t i = 0; i < v.size(); i++) {
		char buf[32];
		std::snprintf(buf, sizeof buf, "%s%.6g", i ? ", " : "", v[i]);
		out += buf;
	}
	return out + "]";
}

// The command line every peer takes: A B --poses FILE [--repeat R]
// [--threads T] [--count N] [--answers FILE] [--out FILE] [--name NAME].
struct PeerArgs {
	std::vector<std::string> positional;
	std::string poses_path, answers_path, out_path, name;
	int repeat = 5;
	unsigned threads = 0; // after parse_peer_args: all hardware threads when not given
	size_t count = SIZE_MAX;
};

// Parses the shared options; `extra(arg, value)` takes a peer's own option
// (returning false for one it does not know, `value()` reading its value).
// Any unknown option, a missing value or a bad combination calls usage().
inline PeerArgs parse_peer_args(int argc, char **argv, void (*usage)(),
                                const std::function<bool(const std::string &, const std::function<std::string()> &)>
                                    &extra = nullptr)
{
	PeerArgs a;
	for (int i = 1; i < argc; i++) {
		std::string arg = argv[i];
		std::function<std::string()> value = [&]() -> std::string {
			if (i + 1 >= argc)
				usage();
			return argv[++i];
		};
		if (arg == "--poses")
			a.poses_path = value();
		else if (arg == "--repeat")
			a.repeat = std::atoi(value().c_str());
		else if (arg == "--threads")
			a.threads = unsigned(std::atoi(value().c_str()));
		else if (arg == "--count")
			a.count = size_t(std::strtoull(value().c_str(), nullptr, 10));
		else if (arg == "--answers")
			a.answers_path = value();
		else if (arg == "--out")
			a.out_path = value();
		else if (arg == "--name")
			a.name = value();
		else if (extra && extra(arg, value))
			continue;
		else if (arg == "-h" || arg == "--help" || (arg.size() > 1 && arg[0] == '-'))
			usage();
		else
			a.positional.push_back(arg);
	}
	if (a.positional.size() != 2 || a.poses_path.empty() || a.repeat < 1)
		usage();
	if (a.threads == 0)
		a.threads = std::max(1u, std::thread::hardware_concurrency());
	return a;
}

// --answers: one 0/1 line per pose.
inline void write_answers(const std::string &path, const std::vector<unsigned char> &answers)
{
	FILE *f = std::fopen(path.c_str(), "w");
	if (!f)
		die(path + ": " + std::strerror(errno));
	for (unsigned char c : answers)
		std::fputc(c ? '1' : '0', f), std::fputc('\n', f);
	if (std::fclose(f) != 0)
		die(path + ": write failed");
}

// The JSON to --out, or to stdout without it.
inline void write_output(const std::string &path, const std::string &json)
{
	if (path.empty()) {
		std::fputs(json.c_str(), stdout);
	} else {
		FILE *f = std::fopen(path.c_str(), "w");
		if (!f || std::fputs(json.c_str(), f) < 0 || std::fclose(f) != 0)
			die(path + ": cannot write");
	}
}

} // namespace bench

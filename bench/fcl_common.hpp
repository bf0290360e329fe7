// SPDX-License-Identifier: MIT
// What the FCL-based benchmark programs share: mesh import through Assimp's
// C++ API (the geometry the CLI's importer gives vkcollide), FCL models, and
// the CLI's pose format read as the float values the library receives.
#pragma once

#include <fcl/fcl.h>

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace bench {

// Set by main; prefixes error messages.
inline const char *program_name = "bench";

using Model = fcl::BVHModel<fcl::OBBRSSd>;

struct Mesh {
	std::string path, name;
	std::vector<fcl::Vector3d> vertices;
	std::vector<fcl::Triangle> triangles;
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

// Every sub-mesh in world space (node transforms applied), triangles only:
// the same geometry the CLI's importer hands vkcollide.
inline void append_node(const aiScene *scene, const aiNode *node, const aiMatrix4x4 &parent, Mesh &out)
{
	aiMatrix4x4 world = parent * node->mTransformation;
	for (unsigned m = 0; m < node->mNumMeshes; m++) {
		const aiMesh *mesh = scene->mMeshes[node->mMeshes[m]];
		size_t base = out.vertices.size();
		for (unsigned v = 0; v < mesh->mNumVertices; v++) {
			aiVector3D p = world * mesh->mVertices[v];
			// Through float, as vkcollide receives them, then exactly to double.
			out.vertices.emplace_back(double(float(p.x)), double(float(p.y)), double(float(p.z)));
		}
		for (unsigned f = 0; f < mesh->mNumFaces; f++) {
			const aiFace &face = mesh->mFaces[f];
			if (face.mNumIndices != 3)
				continue; // points and lines have no volume or area to collide
			out.triangles.emplace_back(base + face.mIndices[0], base + face.mIndices[1], base + face.mIndices[2]);
		}
	}
	for (unsigned c = 0; c < node->mNumChildren; c++)
		append_node(scene, node->mChildren[c], world, out);
}

inline Mesh load_mesh(const std::string &path)
{
	Assimp::Importer importer;
	const aiScene *scene = importer.ReadFile(path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_SortByPType);
	if (!scene || !scene->mRootNode)
		die(path + ": Assimp cannot read it: " + importer.GetErrorString());
	Mesh mesh;
	mesh.path = path;
	mesh.name = stem(path);
	append_node(scene, scene->mRootNode, aiMatrix4x4(), mesh);
	if (mesh.triangles.empty())
		die(path + ": it holds no triangles");
	return mesh;
}

inline std::shared_ptr<Model> build_model(const Mesh &mesh)
{
	auto model = std::make_shared<Model>();
	model->beginModel(int(mesh.triangles.size()), int(mesh.vertices.size()));
	model->addSubModel(mesh.vertices, mesh.triangles);
	model->endModel();
	return model;
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

// The float pose widened exactly to double, the quaternion normalised as the
// library does.
inline fcl::Transform3d to_transform(const Pose &v)
{
	fcl::Quaterniond q(v[0], v[1], v[2], v[3]); // Eigen's constructor takes w first too
	q.normalize();
	fcl::Transform3d tf = fcl::Transform3d::Identity();
	tf.linear() = q.toRotationMatrix();
	tf.translation() = fcl::Vector3d(v[4], v[5], v[6]);
	return tf;
}

} // namespace bench

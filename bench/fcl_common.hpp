// SPDX-License-Identifier: MIT
// What the FCL-based benchmark programs share beyond peer_common.hpp: FCL
// meshes and models, and poses as FCL transforms.
#pragma once

#include <fcl/fcl.h>

#include <memory>

#include "peer_common.hpp"

namespace bench {

using Model = fcl::BVHModel<fcl::OBBRSSd>;

struct Mesh {
	std::string path, name;
	std::vector<fcl::Vector3d> vertices;
	std::vector<fcl::Triangle> triangles;
};

// The imported float vertices widened exactly to double.
inline Mesh load_mesh(const std::string &path)
{
	ImportedMesh in = import_mesh(path);
	Mesh mesh;
	mesh.path = in.path;
	mesh.name = in.name;
	for (const auto &v : in.vertices)
		mesh.vertices.emplace_back(double(v[0]), double(v[1]), double(v[2]));
	for (const auto &t : in.triangles)
		mesh.triangles.emplace_back(t[0], t[1], t[2]);
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

// SPDX-License-Identifier: MIT
// `vkcollide mesh-info FILE`: imports a mesh and describes it.
#pragma once

#include "cli.h"

extern const command mesh_info_command;

// SPDX-License-Identifier: MIT
// `vkcollide collide A B --poses FILE`: tests mesh B at every pose of a
// poses file against mesh A, streaming the poses in blocks.
#pragma once

#include "cli.h"

extern const command collide_command;

// SPDX-License-Identifier: MIT
// `vkcollide devices`: lists the Vulkan devices and marks the one used.
#pragma once

#include "cli.h"

extern const command devices_command;

// SPDX-License-Identifier: MIT
// `vkcollide devices`: lists the Vulkan devices and marks the one used.
#pragma once

#include "cli.h"

extern const command devices_command;

// The device type as the JSON outputs name it ("discrete_gpu", ..., "other").
const char *device_type_key(vkcol_device_type type);

// SPDX-License-Identifier: MIT
// GPU layer: per-device dispatch tables through volk (volk_unit.c).
#pragma once

#include <volk.h>

// Fills table with device functions loaded through get_device_proc_addr.
void volk_unit_load_device_table(struct VolkDeviceTable *table, VkDevice device,
                                 PFN_vkGetDeviceProcAddr get_device_proc_addr);

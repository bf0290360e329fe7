// SPDX-License-Identifier: MIT
// GPU layer: the one translation unit that compiles volk (Debian ships
// volk.c as a source file, not a library), and a loader for a per-device
// VolkDeviceTable through that device's own vkGetDeviceProcAddr, so that no
// device writes volk's process-wide function pointers.
#include <volk.c>

#include "gpu/volk_unit.h"

typedef struct table_loader {
	PFN_vkGetDeviceProcAddr get_device_proc_addr;
	VkDevice device;
} table_loader;

static PFN_vkVoidFunction load_device_function(void *context, const char *name)
{
	const table_loader *loader = context;
	return loader->get_device_proc_addr(loader->device, name);
}

void volk_unit_load_device_table(struct VolkDeviceTable *table, VkDevice device,
                                 PFN_vkGetDeviceProcAddr get_device_proc_addr)
{
	table_loader loader = {get_device_proc_addr, device};
	volkGenLoadDeviceTable(table, &loader, load_device_function);
}

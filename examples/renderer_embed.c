// SPDX-License-Identifier: MIT
// A headless program that plays a Vulkan renderer embedding vkcollide
// (README.md, "Recorded queries"): its own instance and device, a few dozen
// objects (the bench meshes) animated by a compute shader of its own,
// vkcollide's query recorded after that pass in the same command buffer,
// the answers used on the GPU (objects in a colliding pair drawn red, the
// others grey), rendered offscreen and saved as a PNG. The command buffer is
// recorded once and submitted every frame with a new time in a host-visible
// buffer. Each frame is checked against vkcol_batch_run on the poses the GPU
// wrote; with VKCOLLIDE_VALIDATION=1 the validation layer (synchronization
// validation included) watches it all, and any message fails the program.
//
//   renderer_embed MESH_DIR OUT.png [--frames N] [--approx]
//
// MESH_DIR holds the bench meshes (bench/meshes: sphere.obj, torus.obj,
// star.obj, box.obj). Exit status 0 when every frame agrees, 1 otherwise.
#include <vulkan/vulkan.h>

#include <vkcollide.h>

#include <math.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The SPIR-V of the example's shaders, compiled by glslc at build time.
static const uint32_t animate_spv[] = {
#include "animate.spv.inc"
};
static const uint32_t colour_spv[] = {
#include "colour.spv.inc"
};
static const uint32_t object_vert_spv[] = {
#include "object_vert.spv.inc"
};
static const uint32_t object_frag_spv[] = {
#include "object_frag.spv.inc"
};

#define WIDTH 800
#define HEIGHT 480
#define GRID_X 8
#define GRID_Y 5
#define OBJECTS (GRID_X * GRID_Y)
#define PAIRS (OBJECTS * (OBJECTS - 1) / 2)
#define MESHES 4

static _Noreturn void die(const char *fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	fprintf(stderr, "renderer_embed: ");
	vfprintf(stderr, fmt, args);
	fprintf(stderr, "\n");
	va_end(args);
	exit(1);
}

#define VK_CHECK(call)                                                                   \
	do {                                                                                 \
		VkResult vk_check_ = (call);                                                     \
		if (vk_check_ != VK_SUCCESS)                                                     \
			die("%s:%d: %s failed (%d)", __FILE__, __LINE__, #call, (int)vk_check_); \
	} while (0)

// ---------------------------------------------------------------------------
// Meshes: a small OBJ reader ("v x y z", "f a b c ..." with 1-based indices,
// polygons as fans) for the bench meshes.

typedef struct mesh {
	float *positions;
	uint32_t *indices;
	uint32_t vertex_count, triangle_count;
} mesh;

static void read_obj(const char *path, mesh *m)
{
	FILE *f = fopen(path, "r");
	if (!f)
		die("cannot open %s", path);
	memset(m, 0, sizeof(*m));
	size_t vcap = 0, icap = 0;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == 'v' && line[1] == ' ') {
			if (3 * (size_t)m->vertex_count + 3 > vcap) {
				vcap = vcap ? 2 * vcap : 3072;
				m->positions = realloc(m->positions, vcap * sizeof(float));
			}
			float *v = &m->positions[3 * (size_t)m->vertex_count];
			if (sscanf(line + 2, "%f %f %f", &v[0], &v[1], &v[2]) != 3)
				die("%s: bad vertex line: %s", path, line);
			m->vertex_count++;
		} else if (line[0] == 'f' && line[1] == ' ') {
			uint32_t corners[64], n = 0;
			for (char *tok = strtok(line + 2, " \t\r\n"); tok && n < 64; tok = strtok(NULL, " \t\r\n")) {
				long k = strtol(tok, NULL, 10); // "a/b/c": the position index
				if (k < 1 || (unsigned long)k > m->vertex_count)
					die("%s: face index %ld out of range", path, k);
				corners[n++] = (uint32_t)(k - 1);
			}
			for (uint32_t k = 2; k < n; k++) {
				if (3 * (size_t)m->triangle_count + 3 > icap) {
					icap = icap ? 2 * icap : 6144;
					m->indices = realloc(m->indices, icap * sizeof(uint32_t));
				}
				uint32_t *t = &m->indices[3 * (size_t)m->triangle_count++];
				t[0] = corners[0], t[1] = corners[k - 1], t[2] = corners[k];
			}
		}
	}
	fclose(f);
	if (!m->vertex_count || !m->triangle_count)
		die("%s: no triangles", path);
}

// ---------------------------------------------------------------------------
// The renderer's Vulkan objects

typedef struct buffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	void *mapped;
	VkDeviceSize size;
} buffer;

typedef struct renderer {
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	VkPhysicalDevice physical_device;
	VkPhysicalDeviceMemoryProperties memory;
	VkDevice device;
	uint32_t family;
	VkQueue queue;
	bool synchronization2, float64;
	uint64_t messages; // validation messages
} renderer;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
	(void)severity;
	(void)types;
	((renderer *)user)->messages++;
	fprintf(stderr, "validation: %s\n", data->pMessage);
	return VK_FALSE;
}

static void renderer_create(renderer *r, bool validation)
{
	memset(r, 0, sizeof(*r));
	uint32_t loader = VK_API_VERSION_1_1;
	vkEnumerateInstanceVersion(&loader);
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                         .pApplicationName = "renderer_embed",
	                         .apiVersion = loader >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : VK_API_VERSION_1_1};
	const VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
	VkValidationFeaturesEXT features = {.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
	                                    .enabledValidationFeatureCount = 1,
	                                    .pEnabledValidationFeatures = enables};
	VkDebugUtilsMessengerCreateInfoEXT messenger = {
	    .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
	    .pNext = &features,
	    .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
	    .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
	    .pfnUserCallback = on_message,
	    .pUserData = r,
	};
	const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
	const char *extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
	VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
	                           .pNext = validation ? &messenger : NULL,
	                           .pApplicationInfo = &app,
	                           .enabledLayerCount = validation ? 1 : 0,
	                           .ppEnabledLayerNames = layers,
	                           .enabledExtensionCount = validation ? 2 : 0,
	                           .ppEnabledExtensionNames = extensions};
	VK_CHECK(vkCreateInstance(&ii, NULL, &r->instance));
	if (validation) {
		PFN_vkCreateDebugUtilsMessengerEXT create =
		    (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(r->instance, "vkCreateDebugUtilsMessengerEXT");
		messenger.pNext = NULL;
		VK_CHECK(create(r->instance, &messenger, NULL, &r->messenger));
	}
	// The first device with a queue family for graphics and compute.
	VkPhysicalDevice devices[8];
	uint32_t count = 8;
	VkResult vr = vkEnumeratePhysicalDevices(r->instance, &count, devices);
	if ((vr != VK_SUCCESS && vr != VK_INCOMPLETE) || count == 0)
		die("no Vulkan device");
	for (uint32_t d = 0; d < count && !r->physical_device; d++) {
		VkQueueFamilyProperties families[16];
		uint32_t nf = 16;
		vkGetPhysicalDeviceQueueFamilyProperties(devices[d], &nf, families);
		for (uint32_t f = 0; f < nf && !r->physical_device; f++)
			if ((families[f].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) ==
			    (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) {
				r->physical_device = devices[d];
				r->family = f;
			}
	}
	if (!r->physical_device)
		die("no device with a graphics and compute queue");
	vkGetPhysicalDeviceMemoryProperties(r->physical_device, &r->memory);
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(r->physical_device, &props);
	// What vkcollide needs (imageCubeArray), and what it uses when offered:
	// shaderFloat64 (exact mode's last tests in double), synchronization2.
	VkPhysicalDeviceVulkan13Features offered13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
	bool v13 = props.apiVersion >= VK_API_VERSION_1_3 && app.apiVersion >= VK_API_VERSION_1_3;
	VkPhysicalDeviceFeatures2 offered = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
	                                     .pNext = v13 ? &offered13 : NULL};
	vkGetPhysicalDeviceFeatures2(r->physical_device, &offered);
	if (!offered.features.imageCubeArray)
		die("%s lacks imageCubeArray, which vkcollide needs", props.deviceName);
	r->synchronization2 = offered13.synchronization2;
	r->float64 = offered.features.shaderFloat64;
	VkPhysicalDeviceVulkan13Features enabled13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
	                                              .synchronization2 = r->synchronization2};
	VkPhysicalDeviceFeatures enabled = {.imageCubeArray = VK_TRUE, .shaderFloat64 = r->float64};
	float priority = 1.0f;
	VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                              .queueFamilyIndex = r->family,
	                              .queueCount = 1,
	                              .pQueuePriorities = &priority};
	VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                         .pNext = r->synchronization2 ? &enabled13 : NULL,
	                         .queueCreateInfoCount = 1,
	                         .pQueueCreateInfos = &qi,
	                         .pEnabledFeatures = &enabled};
	VK_CHECK(vkCreateDevice(r->physical_device, &di, NULL, &r->device));
	vkGetDeviceQueue(r->device, r->family, 0, &r->queue);
	printf("device: %s (synchronization2 %s, shaderFloat64 %s)\n", props.deviceName,
	       r->synchronization2 ? "on" : "off", r->float64 ? "on" : "off");
}

static uint32_t memory_type(const renderer *r, uint32_t bits, VkMemoryPropertyFlags want)
{
	for (uint32_t i = 0; i < r->memory.memoryTypeCount; i++)
		if ((bits & (1u << i)) && (r->memory.memoryTypes[i].propertyFlags & want) == want)
			return i;
	die("no memory type with flags 0x%x", want);
}

// A buffer; host-visible and mapped when `host`, else device-local.
static buffer buffer_create(const renderer *r, VkDeviceSize size, VkBufferUsageFlags usage, bool host)
{
	buffer b = {.size = size};
	VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage};
	VK_CHECK(vkCreateBuffer(r->device, &bi, NULL, &b.buffer));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(r->device, b.buffer, &req);
	VkMemoryAllocateInfo ai = {
	    .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	    .allocationSize = req.size,
	    .memoryTypeIndex = memory_type(r, req.memoryTypeBits,
	                                   host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
	                                        : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
	VK_CHECK(vkAllocateMemory(r->device, &ai, NULL, &b.memory));
	VK_CHECK(vkBindBufferMemory(r->device, b.buffer, b.memory, 0));
	if (host) {
		VK_CHECK(vkMapMemory(r->device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
		memset(b.mapped, 0, size);
	}
	return b;
}

static void buffer_destroy(const renderer *r, buffer *b)
{
	vkDestroyBuffer(r->device, b->buffer, NULL);
	vkFreeMemory(r->device, b->memory, NULL);
}

typedef struct image {
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;
} image;

static image image_create(const renderer *r, VkFormat format, VkImageUsageFlags usage, VkImageAspectFlags aspect)
{
	image im;
	VkImageCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
	                        .imageType = VK_IMAGE_TYPE_2D,
	                        .format = format,
	                        .extent = {WIDTH, HEIGHT, 1},
	                        .mipLevels = 1,
	                        .arrayLayers = 1,
	                        .samples = VK_SAMPLE_COUNT_1_BIT,
	                        .tiling = VK_IMAGE_TILING_OPTIMAL,
	                        .usage = usage};
	VK_CHECK(vkCreateImage(r->device, &ii, NULL, &im.image));
	VkMemoryRequirements req;
	vkGetImageMemoryRequirements(r->device, im.image, &req);
	VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                           .allocationSize = req.size,
	                           .memoryTypeIndex = memory_type(r, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)};
	VK_CHECK(vkAllocateMemory(r->device, &ai, NULL, &im.memory));
	VK_CHECK(vkBindImageMemory(r->device, im.image, im.memory, 0));
	VkImageViewCreateInfo vi = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
	                            .image = im.image,
	                            .viewType = VK_IMAGE_VIEW_TYPE_2D,
	                            .format = format,
	                            .subresourceRange = {aspect, 0, 1, 0, 1}};
	VK_CHECK(vkCreateImageView(r->device, &vi, NULL, &im.view));
	return im;
}

static VkShaderModule shader(const renderer *r, const uint32_t *code, size_t size)
{
	VkShaderModuleCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
	VkShaderModule m;
	VK_CHECK(vkCreateShaderModule(r->device, &si, NULL, &m));
	return m;
}

// A descriptor set layout of `count` storage buffers for `stages`.
static VkDescriptorSetLayout storage_layout(const renderer *r, uint32_t count, VkShaderStageFlags stages)
{
	VkDescriptorSetLayoutBinding b[8];
	for (uint32_t i = 0; i < count; i++)
		b[i] = (VkDescriptorSetLayoutBinding){i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, stages, NULL};
	VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
	                                      .bindingCount = count,
	                                      .pBindings = b};
	VkDescriptorSetLayout l;
	VK_CHECK(vkCreateDescriptorSetLayout(r->device, &li, NULL, &l));
	return l;
}

static VkDescriptorSet storage_set(const renderer *r, VkDescriptorPool pool, VkDescriptorSetLayout layout,
                                   const buffer *const *buffers, uint32_t count)
{
	VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
	                                  .descriptorPool = pool,
	                                  .descriptorSetCount = 1,
	                                  .pSetLayouts = &layout};
	VkDescriptorSet set;
	VK_CHECK(vkAllocateDescriptorSets(r->device, &ai, &set));
	VkDescriptorBufferInfo infos[8];
	VkWriteDescriptorSet writes[8];
	for (uint32_t i = 0; i < count; i++) {
		infos[i] = (VkDescriptorBufferInfo){buffers[i]->buffer, 0, VK_WHOLE_SIZE};
		writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		                                   .dstSet = set,
		                                   .dstBinding = i,
		                                   .descriptorCount = 1,
		                                   .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
		                                   .pBufferInfo = &infos[i]};
	}
	vkUpdateDescriptorSets(r->device, count, writes, 0, NULL);
	return set;
}

static VkPipeline compute_pipeline(const renderer *r, VkPipelineLayout layout, const uint32_t *code, size_t size)
{
	VkShaderModule m = shader(r, code, size);
	VkComputePipelineCreateInfo ci = {
	    .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
	    .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
	              .stage = VK_SHADER_STAGE_COMPUTE_BIT,
	              .module = m,
	              .pName = "main"},
	    .layout = layout,
	};
	VkPipeline p;
	VK_CHECK(vkCreateComputePipelines(r->device, VK_NULL_HANDLE, 1, &ci, NULL, &p));
	vkDestroyShaderModule(r->device, m, NULL);
	return p;
}

static VkPipelineLayout pipeline_layout(const renderer *r, VkDescriptorSetLayout set, VkShaderStageFlags push_stages,
                                        uint32_t push_size)
{
	VkPushConstantRange push = {push_stages, 0, push_size};
	VkPipelineLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
	                                 .setLayoutCount = 1,
	                                 .pSetLayouts = &set,
	                                 .pushConstantRangeCount = push_size ? 1 : 0,
	                                 .pPushConstantRanges = &push};
	VkPipelineLayout l;
	VK_CHECK(vkCreatePipelineLayout(r->device, &li, NULL, &l));
	return l;
}

// A global memory barrier (Vulkan 1.1 form: the renderer's own choice).
static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                    VkAccessFlags dst_access)
{
	VkMemoryBarrier b = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = src_access, .dstAccessMask = dst_access};
	vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &b, 0, NULL, 0, NULL);
}

// ---------------------------------------------------------------------------
// The scene: a grid of objects, each orbiting its home and spinning; the
// neighbours' orbits overlap, so some pairs collide in each frame.

typedef struct object {
	uint32_t mesh_id, pad[3];
	float home[4], orbit[4], spin[4];
} object;

typedef struct frame_data {
	float time;
	uint32_t object_count, pair_count, pad;
} frame_data;

static float unit_random(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((*s >> 40) & 0xffffff) / 16777216.0f;
}

static void scene_objects(const vkcol_mesh *meshes, object *objects)
{
	uint64_t s = 26;
	for (uint32_t i = 0; i < OBJECTS; i++) {
		object *o = &objects[i];
		memset(o, 0, sizeof(*o));
		o->mesh_id = meshes[(i * 7 + i / GRID_X) % MESHES].id;
		o->home[0] = ((float)(i % GRID_X) - (GRID_X - 1) / 2.0f) * 2.9f;
		o->home[1] = ((float)(i / GRID_X) - (GRID_Y - 1) / 2.0f) * 2.9f;
		o->orbit[0] = 0.5f + 0.4f * unit_random(&s);
		o->orbit[1] = (unit_random(&s) < 0.5f ? -1.0f : 1.0f) * (0.6f + 0.8f * unit_random(&s));
		o->orbit[2] = 6.2831853f * unit_random(&s);
		o->orbit[3] = 0.4f;
		float ax = unit_random(&s) - 0.5f, ay = unit_random(&s) - 0.5f, az = unit_random(&s) - 0.5f;
		float n = sqrtf(ax * ax + ay * ay + az * az) + 1e-6f;
		o->spin[0] = ax / n, o->spin[1] = ay / n, o->spin[2] = az / n;
		o->spin[3] = 0.5f + 1.5f * unit_random(&s);
	}
}

// A camera looking down at the grid from in front: a column-major
// view-projection matrix (Vulkan clip space: y down, depth 0..1).
static void camera(float m[16])
{
	const float eye[3] = {0.0f, -17.0f, 19.0f}, at[3] = {0.0f, -0.8f, 0.0f}, up[3] = {0.0f, 0.0f, 1.0f};
	float f[3] = {at[0] - eye[0], at[1] - eye[1], at[2] - eye[2]};
	float fl = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
	for (int k = 0; k < 3; k++)
		f[k] /= fl;
	float s[3] = {f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]};
	float sl = sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
	for (int k = 0; k < 3; k++)
		s[k] /= sl;
	float u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
	float fov = 0.78f, aspect = (float)WIDTH / HEIGHT, zn = 1.0f, zf = 100.0f, t = 1.0f / tanf(fov / 2);
	// Rows of view (camera x right, y down, z forward).
	float v[3][4] = {{s[0], s[1], s[2], 0}, {-u[0], -u[1], -u[2], 0}, {f[0], f[1], f[2], 0}};
	for (int r = 0; r < 3; r++)
		v[r][3] = -(v[r][0] * eye[0] + v[r][1] * eye[1] + v[r][2] * eye[2]);
	float p[4][3] = {{t / aspect, 0, 0}, {0, t, 0}, {0, 0, zf / (zf - zn)}, {0, 0, 1}};
	float pz = -zn * zf / (zf - zn);
	for (int c = 0; c < 4; c++) {
		m[4 * c + 0] = p[0][0] * v[0][c];
		m[4 * c + 1] = p[1][1] * v[1][c];
		m[4 * c + 2] = p[2][2] * v[2][c] + (c == 3 ? pz : 0.0f);
		m[4 * c + 3] = v[2][c];
	}
}

static void write_png(const char *path, const uint8_t *rgba)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		die("cannot write %s", path);
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png_create_info_struct(png);
	if (!png || !info || setjmp(png_jmpbuf(png)))
		die("libpng failed writing %s", path);
	png_init_io(png, f);
	png_set_IHDR(png, info, WIDTH, HEIGHT, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
	             PNG_FILTER_TYPE_DEFAULT);
	png_write_info(png, info);
	for (int y = 0; y < HEIGHT; y++)
		png_write_row(png, (png_const_bytep)&rgba[(size_t)y * WIDTH * 4]);
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		die("usage: renderer_embed MESH_DIR OUT.png [--frames N] [--approx]");
	int frames = 3;
	vkcol_mode mode = VKCOL_MODE_EXACT;
	for (int i = 3; i < argc; i++) {
		if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
			frames = atoi(argv[++i]);
		else if (strcmp(argv[i], "--approx") == 0)
			mode = VKCOL_MODE_APPROX;
		else
			die("unknown option %s", argv[i]);
	}
	const char *validation_env = getenv("VKCOLLIDE_VALIDATION");
	bool validation = validation_env && strcmp(validation_env, "0") != 0 && validation_env[0];
	renderer r;
	renderer_create(&r, validation);

	// vkcollide on the renderer's device.
	vkcol_external_device ext = {.instance = r.instance,
	                             .physical_device = r.physical_device,
	                             .device = r.device,
	                             .queue_family_index = r.family,
	                             .get_instance_proc_addr = vkGetInstanceProcAddr,
	                             .shader_float64 = r.float64,
	                             .synchronization2 = r.synchronization2};
	vkcol_context_desc cd = {.external = &ext, .threads = VKCOL_THREADS_CALLER};
	vkcol_context *ctx;
	vkcol_result res = vkcol_context_create(&cd, &ctx);
	if (res != VKCOL_SUCCESS)
		die("vkcol_context_create: %s", vkcol_result_string(res));
	const char *names[MESHES] = {"sphere", "torus", "star", "box"};
	mesh meshes[MESHES];
	vkcol_mesh handles[MESHES];
	uint32_t first_index[MESHES], vertex_offset[MESHES], total_vertices = 0, total_indices = 0;
	for (int k = 0; k < MESHES; k++) {
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s.obj", argv[1], names[k]);
		read_obj(path, &meshes[k]);
		vkcol_mesh_desc md = {.positions = meshes[k].positions,
		                      .vertex_count = meshes[k].vertex_count,
		                      .indices = meshes[k].indices,
		                      .triangle_count = meshes[k].triangle_count,
		                      .name = names[k]};
		if ((res = vkcol_mesh_create(ctx, &md, &handles[k])) != VKCOL_SUCCESS)
			die("vkcol_mesh_create(%s): %s", names[k], vkcol_result_string(res));
		first_index[k] = total_indices;
		vertex_offset[k] = total_vertices;
		total_vertices += meshes[k].vertex_count;
		total_indices += 3 * meshes[k].triangle_count;
	}
	vkcol_gpu_batch_desc bd = {.mode = mode, .max_pairs = PAIRS};
	vkcol_gpu_batch *batch;
	if ((res = vkcol_gpu_batch_create(ctx, &bd, &batch)) != VKCOL_SUCCESS)
		die("vkcol_gpu_batch_create: %s", vkcol_result_string(res));

	// The renderer's buffers. Host-visible where the program reads them back
	// to check the frame (a renderer would keep them device-local).
	const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
	buffer vertices = buffer_create(&r, (VkDeviceSize)total_vertices * 12, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, true);
	buffer indices = buffer_create(&r, (VkDeviceSize)total_indices * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, true);
	for (int k = 0; k < MESHES; k++) {
		memcpy((float *)vertices.mapped + 3 * (size_t)vertex_offset[k], meshes[k].positions,
		       meshes[k].vertex_count * 12);
		memcpy((uint32_t *)indices.mapped + first_index[k], meshes[k].indices, meshes[k].triangle_count * 12);
	}
	buffer objects = buffer_create(&r, OBJECTS * sizeof(object), storage, true);
	scene_objects(handles, objects.mapped);
	buffer frame = buffer_create(&r, sizeof(frame_data), storage, true);
	buffer pair_objects = buffer_create(&r, PAIRS * 8, storage, true);
	for (uint32_t i = 0, p = 0; i < OBJECTS; i++)
		for (uint32_t j = i + 1; j < OBJECTS; j++, p++)
			((uint32_t *)pair_objects.mapped)[2 * p] = i, ((uint32_t *)pair_objects.mapped)[2 * p + 1] = j;
	buffer poses = buffer_create(&r, OBJECTS * 32, storage, true);
	buffer pairs = buffer_create(&r, PAIRS * sizeof(vkcol_pair), storage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
	buffer results =
	    buffer_create(&r, PAIRS * sizeof(vkcol_pair_result), storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
	buffer summary = buffer_create(&r, sizeof(vkcol_record_summary), VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
	buffer hits = buffer_create(&r, OBJECTS * 4, storage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
	buffer pixels = buffer_create(&r, (VkDeviceSize)WIDTH * HEIGHT * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);

	// Descriptor sets and pipelines: the animation, the colouring, the draw.
	VkDescriptorPoolSize sizes = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 16};
	VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
	                                 .maxSets = 3,
	                                 .poolSizeCount = 1,
	                                 .pPoolSizes = &sizes};
	VkDescriptorPool set_pool;
	VK_CHECK(vkCreateDescriptorPool(r.device, &pi, NULL, &set_pool));
	VkDescriptorSetLayout animate_layout = storage_layout(&r, 5, VK_SHADER_STAGE_COMPUTE_BIT);
	VkDescriptorSetLayout colour_layout = storage_layout(&r, 3, VK_SHADER_STAGE_COMPUTE_BIT);
	VkDescriptorSetLayout draw_layout = storage_layout(&r, 2, VK_SHADER_STAGE_VERTEX_BIT);
	const buffer *animate_buffers[] = {&objects, &frame, &pair_objects, &poses, &pairs};
	const buffer *colour_buffers[] = {&results, &pair_objects, &hits};
	const buffer *draw_buffers[] = {&poses, &hits};
	VkDescriptorSet animate_set = storage_set(&r, set_pool, animate_layout, animate_buffers, 5);
	VkDescriptorSet colour_set = storage_set(&r, set_pool, colour_layout, colour_buffers, 3);
	VkDescriptorSet draw_set = storage_set(&r, set_pool, draw_layout, draw_buffers, 2);
	VkPipelineLayout animate_pl = pipeline_layout(&r, animate_layout, 0, 0);
	VkPipelineLayout colour_pl = pipeline_layout(&r, colour_layout, VK_SHADER_STAGE_COMPUTE_BIT, 4);
	VkPipelineLayout draw_pl = pipeline_layout(&r, draw_layout, VK_SHADER_STAGE_VERTEX_BIT, 64);
	VkPipeline animate = compute_pipeline(&r, animate_pl, animate_spv, sizeof(animate_spv));
	VkPipeline colour = compute_pipeline(&r, colour_pl, colour_spv, sizeof(colour_spv));

	image target = image_create(&r, VK_FORMAT_R8G8B8A8_UNORM,
	                            VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
	                            VK_IMAGE_ASPECT_COLOR_BIT);
	image depth = image_create(&r, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
	                           VK_IMAGE_ASPECT_DEPTH_BIT);
	VkAttachmentDescription attachments[2] = {
	    {0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
	     VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
	     VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL},
	    {0, VK_FORMAT_D32_SFLOAT, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_DONT_CARE,
	     VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
	     VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL},
	};
	VkAttachmentReference colour_ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
	VkAttachmentReference depth_ref = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
	VkSubpassDescription subpass = {.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
	                                .colorAttachmentCount = 1,
	                                .pColorAttachments = &colour_ref,
	                                .pDepthStencilAttachment = &depth_ref};
	// The last frame's copy of the image, and its depth tests, before this
	// frame's clears; this frame's drawing before the copy.
	VkSubpassDependency dependencies[2] = {
	    {VK_SUBPASS_EXTERNAL, 0,
	     VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
	     VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
	     VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
	     VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
	         VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
	     0},
	    {0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
	     VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, 0},
	};
	VkRenderPassCreateInfo rpi = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
	                              .attachmentCount = 2,
	                              .pAttachments = attachments,
	                              .subpassCount = 1,
	                              .pSubpasses = &subpass,
	                              .dependencyCount = 2,
	                              .pDependencies = dependencies};
	VkRenderPass render_pass;
	VK_CHECK(vkCreateRenderPass(r.device, &rpi, NULL, &render_pass));
	VkImageView views[2] = {target.view, depth.view};
	VkFramebufferCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
	                              .renderPass = render_pass,
	                              .attachmentCount = 2,
	                              .pAttachments = views,
	                              .width = WIDTH,
	                              .height = HEIGHT,
	                              .layers = 1};
	VkFramebuffer framebuffer;
	VK_CHECK(vkCreateFramebuffer(r.device, &fi, NULL, &framebuffer));
	VkShaderModule vert = shader(&r, object_vert_spv, sizeof(object_vert_spv));
	VkShaderModule frag = shader(&r, object_frag_spv, sizeof(object_frag_spv));
	VkPipelineShaderStageCreateInfo stages[2] = {
	    {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_VERTEX_BIT,
	     .module = vert, .pName = "main"},
	    {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_FRAGMENT_BIT,
	     .module = frag, .pName = "main"},
	};
	VkVertexInputBindingDescription vb = {0, 12, VK_VERTEX_INPUT_RATE_VERTEX};
	VkVertexInputAttributeDescription va = {0, 0, VK_FORMAT_R32G32B32_SFLOAT, 0};
	VkPipelineVertexInputStateCreateInfo vertex_input = {
	    .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
	    .vertexBindingDescriptionCount = 1,
	    .pVertexBindingDescriptions = &vb,
	    .vertexAttributeDescriptionCount = 1,
	    .pVertexAttributeDescriptions = &va};
	VkPipelineInputAssemblyStateCreateInfo assembly = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
	                                                   .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST};
	VkViewport viewport = {0, 0, WIDTH, HEIGHT, 0, 1};
	VkRect2D scissor = {{0, 0}, {WIDTH, HEIGHT}};
	VkPipelineViewportStateCreateInfo viewport_state = {.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
	                                                    .viewportCount = 1,
	                                                    .pViewports = &viewport,
	                                                    .scissorCount = 1,
	                                                    .pScissors = &scissor};
	VkPipelineRasterizationStateCreateInfo raster = {.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
	                                                 .polygonMode = VK_POLYGON_MODE_FILL,
	                                                 .cullMode = VK_CULL_MODE_NONE,
	                                                 .lineWidth = 1.0f};
	VkPipelineMultisampleStateCreateInfo multisample = {.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
	                                                    .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT};
	VkPipelineDepthStencilStateCreateInfo depth_state = {.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
	                                                     .depthTestEnable = VK_TRUE,
	                                                     .depthWriteEnable = VK_TRUE,
	                                                     .depthCompareOp = VK_COMPARE_OP_LESS};
	VkPipelineColorBlendAttachmentState blend_attachment = {.colorWriteMask = 0xf};
	VkPipelineColorBlendStateCreateInfo blend = {.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
	                                             .attachmentCount = 1,
	                                             .pAttachments = &blend_attachment};
	VkGraphicsPipelineCreateInfo gi = {.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
	                                   .stageCount = 2,
	                                   .pStages = stages,
	                                   .pVertexInputState = &vertex_input,
	                                   .pInputAssemblyState = &assembly,
	                                   .pViewportState = &viewport_state,
	                                   .pRasterizationState = &raster,
	                                   .pMultisampleState = &multisample,
	                                   .pDepthStencilState = &depth_state,
	                                   .pColorBlendState = &blend,
	                                   .layout = draw_pl,
	                                   .renderPass = render_pass};
	VkPipeline draw;
	VK_CHECK(vkCreateGraphicsPipelines(r.device, VK_NULL_HANDLE, 1, &gi, NULL, &draw));
	vkDestroyShaderModule(r.device, vert, NULL);
	vkDestroyShaderModule(r.device, frag, NULL);

	// One command buffer for every frame: animation, vkcollide's query,
	// colouring, drawing, the copy of the image for the PNG.
	VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = r.family};
	VkCommandPool command_pool;
	VK_CHECK(vkCreateCommandPool(r.device, &cpi, NULL, &command_pool));
	VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                   .commandPool = command_pool,
	                                   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                   .commandBufferCount = 1};
	VkCommandBuffer cmd;
	VK_CHECK(vkAllocateCommandBuffers(r.device, &cai, &cmd));
	VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
	// The last frame's reads (vertex shader, copies) before this frame's
	// writes.
	barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
	        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
	        VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
	vkCmdFillBuffer(cmd, hits.buffer, 0, VK_WHOLE_SIZE, 0);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, animate);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, animate_pl, 0, 1, &animate_set, 0, NULL);
	vkCmdDispatch(cmd, (PAIRS + 63) / 64, 1, 1);
	// vkcollide's query: it waits for the animation's writes to the pairs
	// (compute), and the colouring pass and the host wait for its answers.
	vkcol_record_desc rd = {.batch = batch,
	                        .pairs = pairs.buffer,
	                        .pair_count = PAIRS,
	                        .results = results.buffer,
	                        .summary = summary.buffer,
	                        .wait_stages = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
	                        .signal_stages = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_HOST_BIT};
	if ((res = vkcol_batch_record(ctx, cmd, &rd)) != VKCOL_SUCCESS)
		die("vkcol_batch_record: %s", vkcol_result_string(res));
	// The hits were cleared by a transfer before the query; the query's end
	// barrier covers compute only.
	barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
	        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
	uint32_t pair_count = PAIRS;
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, colour);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, colour_pl, 0, 1, &colour_set, 0, NULL);
	vkCmdPushConstants(cmd, colour_pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &pair_count);
	vkCmdDispatch(cmd, (PAIRS + 63) / 64, 1, 1);
	barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
	        VK_ACCESS_SHADER_READ_BIT);
	VkClearValue clears[2] = {{.color = {{0.96f, 0.96f, 0.94f, 1.0f}}}, {.depthStencil = {1.0f, 0}}};
	VkRenderPassBeginInfo rbi = {.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
	                             .renderPass = render_pass,
	                             .framebuffer = framebuffer,
	                             .renderArea = {{0, 0}, {WIDTH, HEIGHT}},
	                             .clearValueCount = 2,
	                             .pClearValues = clears};
	vkCmdBeginRenderPass(cmd, &rbi, VK_SUBPASS_CONTENTS_INLINE);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, draw);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, draw_pl, 0, 1, &draw_set, 0, NULL);
	float view_projection[16];
	camera(view_projection);
	vkCmdPushConstants(cmd, draw_pl, VK_SHADER_STAGE_VERTEX_BIT, 0, 64, view_projection);
	VkDeviceSize zero = 0;
	vkCmdBindVertexBuffers(cmd, 0, 1, &vertices.buffer, &zero);
	vkCmdBindIndexBuffer(cmd, indices.buffer, 0, VK_INDEX_TYPE_UINT32);
	const object *objs = objects.mapped;
	for (uint32_t i = 0; i < OBJECTS; i++) {
		int k = 0;
		while (handles[k].id != objs[i].mesh_id)
			k++;
		vkCmdDrawIndexed(cmd, 3 * meshes[k].triangle_count, 1, first_index[k], (int32_t)vertex_offset[k], i);
	}
	vkCmdEndRenderPass(cmd);
	VkBufferImageCopy region = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1}, .imageExtent = {WIDTH, HEIGHT, 1}};
	vkCmdCopyImageToBuffer(cmd, target.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, pixels.buffer, 1, &region);
	barrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
	        VK_ACCESS_HOST_READ_BIT);
	VK_CHECK(vkEndCommandBuffer(cmd));

	VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	VkFence fence;
	VK_CHECK(vkCreateFence(r.device, &fci, NULL, &fence));
	vkcol_pair_result *expected = calloc(PAIRS, sizeof(*expected));
	vkcol_pair *frame_pairs = calloc(PAIRS, sizeof(*frame_pairs));
	int failures = 0;
	for (int f = 0; f < frames; f++) {
		// A new time in the host-visible frame buffer; the same commands.
		frame_data fd = {.time = 1.7f * (float)f, .object_count = OBJECTS, .pair_count = PAIRS};
		memcpy(frame.mapped, &fd, sizeof(fd));
		VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
		VK_CHECK(vkResetFences(r.device, 1, &fence));
		VK_CHECK(vkQueueSubmit(r.queue, 1, &si, fence));
		VK_CHECK(vkWaitForFences(r.device, 1, &fence, VK_TRUE, UINT64_MAX));

		// The check: the poses the GPU wrote, answered by vkcol_batch_run.
		memcpy(frame_pairs, pairs.mapped, PAIRS * sizeof(vkcol_pair));
		vkcol_batch_desc check = {.pairs = frame_pairs, .pair_count = PAIRS, .mode = mode};
		if ((res = vkcol_batch_run(ctx, &check, expected)) != VKCOL_SUCCESS)
			die("vkcol_batch_run: %s", vkcol_result_string(res));
		const vkcol_pair_result *got = results.mapped;
		uint32_t want_hits[OBJECTS] = {0}, colliding = 0, undecided = 0, wrong = 0, objects_hit = 0;
		for (uint32_t p = 0; p < PAIRS; p++) {
			uint32_t i = ((uint32_t *)pair_objects.mapped)[2 * p], j = ((uint32_t *)pair_objects.mapped)[2 * p + 1];
			uint32_t mark = got[p].collide ? 1u : got[p].stage == VKCOL_STAGE_NONE ? 2u : 0u;
			want_hits[i] |= mark, want_hits[j] |= mark;
			colliding += got[p].collide;
			undecided += got[p].stage == VKCOL_STAGE_NONE;
			wrong += got[p].stage != VKCOL_STAGE_NONE && got[p].collide != expected[p].collide;
		}
		for (uint32_t i = 0; i < OBJECTS; i++) {
			wrong += ((const uint32_t *)hits.mapped)[i] != want_hits[i];
			objects_hit += (want_hits[i] & 1u) != 0;
		}
		vkcol_record_summary s;
		memcpy(&s, summary.mapped, sizeof(s));
		wrong += s.pairs != PAIRS || s.collisions != colliding || s.undecided != undecided;
		// The picture shows it: red pixels for the colliding objects.
		const uint8_t *px = pixels.mapped;
		uint32_t red = 0, grey = 0;
		for (size_t k = 0; k < (size_t)WIDTH * HEIGHT; k++) {
			red += px[4 * k] > 2 * px[4 * k + 1] + 20;
			grey += px[4 * k] < 220 && abs((int)px[4 * k] - (int)px[4 * k + 1]) < 4;
		}
		printf("frame %d: %u pairs, %u collide (%u objects red), %u undecided; %u red and %u grey pixels; %s\n", f,
		       PAIRS, colliding, objects_hit, undecided, red, grey, wrong ? "MISMATCH" : "agrees with vkcol_batch_run");
		failures += wrong != 0 || (objects_hit > 0) != (red > 100) || grey < 1000;
	}
	write_png(argv[2], pixels.mapped);
	printf("wrote %s\n", argv[2]);

	// Teardown: the renderer's objects, then vkcollide's, then the device.
	VK_CHECK(vkDeviceWaitIdle(r.device));
	vkcol_context_destroy(ctx);
	vkDestroyFence(r.device, fence, NULL);
	vkDestroyCommandPool(r.device, command_pool, NULL);
	vkDestroyPipeline(r.device, draw, NULL);
	vkDestroyPipeline(r.device, animate, NULL);
	vkDestroyPipeline(r.device, colour, NULL);
	vkDestroyPipelineLayout(r.device, draw_pl, NULL);
	vkDestroyPipelineLayout(r.device, animate_pl, NULL);
	vkDestroyPipelineLayout(r.device, colour_pl, NULL);
	vkDestroyDescriptorSetLayout(r.device, draw_layout, NULL);
	vkDestroyDescriptorSetLayout(r.device, animate_layout, NULL);
	vkDestroyDescriptorSetLayout(r.device, colour_layout, NULL);
	vkDestroyDescriptorPool(r.device, set_pool, NULL);
	vkDestroyFramebuffer(r.device, framebuffer, NULL);
	vkDestroyRenderPass(r.device, render_pass, NULL);
	image *images[2] = {&target, &depth};
	for (int k = 0; k < 2; k++) {
		vkDestroyImageView(r.device, images[k]->view, NULL);
		vkDestroyImage(r.device, images[k]->image, NULL);
		vkFreeMemory(r.device, images[k]->memory, NULL);
	}
	buffer *buffers[] = {&vertices, &indices, &objects, &frame,   &pair_objects, &poses,
	                     &pairs,    &results, &summary, &hits,    &pixels};
	for (size_t k = 0; k < sizeof(buffers) / sizeof(buffers[0]); k++)
		buffer_destroy(&r, buffers[k]);
	vkDestroyDevice(r.device, NULL);
	if (r.messenger) {
		PFN_vkDestroyDebugUtilsMessengerEXT destroy =
		    (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(r.instance, "vkDestroyDebugUtilsMessengerEXT");
		destroy(r.instance, r.messenger, NULL);
	}
	vkDestroyInstance(r.instance, NULL);
	for (int k = 0; k < MESHES; k++) {
		free(meshes[k].positions);
		free(meshes[k].indices);
	}
	free(expected);
	free(frame_pairs);
	if (r.messages)
		fprintf(stderr, "renderer_embed: %llu validation message(s)\n", (unsigned long long)r.messages);
	return failures || r.messages ? 1 : 0;
}

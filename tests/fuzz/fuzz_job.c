// SPDX-License-Identifier: MIT
// libFuzzer harness of the job-file parser (src/cli/job.c, json-c inside).
// Besides the sanitizers' checks: an accepted job has meshes with paths,
// valid names that differ, and pairs; a refused one has a reason and a
// position inside the text (or just past its end).
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	job_spec job;
	job_error err;
	if (job_parse((const char *)data, size, "base", &job, &err)) {
		if (job.mesh_count == 0 || !job.meshes || !job.pairs)
			abort();
		for (uint32_t i = 0; i < job.mesh_count; i++) {
			const char *why;
			const job_mesh *m = &job.meshes[i];
			if (!m->path || !m->resolved || !m->name || !(m->scale > 0.0))
				abort();
			if (m->name[0] && !job_mesh_name_ok(m->name, &why))
				abort();
			for (uint32_t k = 0; k < i && m->name[0]; k++) {
				if (strcmp(job.meshes[k].name, m->name) == 0)
					abort();
			}
		}
		job_free(&job);
	} else {
		uint64_t lines = 1;
		for (size_t i = 0; i < size; i++)
			lines += data[i] == '\n';
		if (err.reason[0] == '\0' || err.line < 1 || err.line > lines || err.column < 1 ||
		    err.column > size + 1)
			abort();
	}
	return 0;
}

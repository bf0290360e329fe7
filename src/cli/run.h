// SPDX-License-Identifier: MIT
#pragma once

#include "cli.h"

extern const command run_command;

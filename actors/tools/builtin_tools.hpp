// Tools: the built-in tools, one registration function per tool file.
#pragma once

#include "actors/tools/registry.hpp"

namespace nb {

/// read_file: numbered lines of a text file, paged by offset/limit.
void add_read_file(tool_registry& reg);

/// write_file: creates or replaces a whole file.
void add_write_file(tool_registry& reg);

/// edit_file: exact text replacement in one file.
void add_edit_file(tool_registry& reg);

/// list_dir: directory entries, optionally recursive.
void add_list_dir(tool_registry& reg);

/// exec: one shell command in a fresh process group, with a time limit.
void add_exec(tool_registry& reg);

/// cron: add, list and remove scheduled jobs (actors/tools/cron_tool.cpp).
void add_cron(tool_registry& reg);

} // namespace nb

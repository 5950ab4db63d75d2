/* SPDX-License-Identifier: MIT */
/* work.h */
#ifndef WORK_H
#define WORK_H
long run_job (int id, const char *name);
#endif

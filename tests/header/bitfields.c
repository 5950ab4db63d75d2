/* SPDX-License-Identifier: MIT */
/* Bit-field arguments: SystemTap's header fails to compile these. */
#include <sys/sdt.h>
#ifdef __cplusplus
typedef bool boolean;
#else
typedef _Bool boolean;
#endif
struct flags { unsigned u3 : 3; int s3 : 3; unsigned long long u40 : 40;
               int s20 : 20; boolean b1 : 1; };
void bits (struct flags *f);
void bits (struct flags *f)
{
  STAP_PROBE5 (t, bits, f->u3, f->s3, f->u40, f->s20, f->b1);
}

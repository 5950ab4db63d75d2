// SPDX-License-Identifier: MIT
// C++ scalar types: bool, character types, scoped enums with their
// underlying types, references, nullptr, member pointers, templates.
#include <sys/sdt.h>
#include <cstddef>

enum class Small : unsigned char { A = 1 };
enum class Wide : long long { A = -1 };
enum class Plain { A };            // underlying int
enum Old { OLD_A = 1 };            // unscoped, unsigned int underlying in GCC
struct S { int member; unsigned bits : 4; };

template <typename T> void tmpl (T v) { STAP_PROBE1 (t, tmpl, v); }

void types (bool b, wchar_t wc, char16_t c16, char32_t c32, Small sm, Wide wd,
            Plain pl, Old old, const int &ref, S *s, int S::*mp);
void types (bool b, wchar_t wc, char16_t c16, char32_t c32, Small sm, Wide wd,
            Plain pl, Old old, const int &ref, S *s, int S::*mp)
{
  STAP_PROBE12 (t, cxx, b, wc, c16, c32, sm, wd, pl, old, ref, s, nullptr, mp);
  STAP_PROBE2 (t, bits, s->bits, s->member);
#if defined __cpp_char8_t
  char8_t c8 = u8'a';
  STAP_PROBE1 (t, char8, c8);
#endif
  tmpl (static_cast<short> (-1));
  tmpl (static_cast<unsigned long> (1));
}

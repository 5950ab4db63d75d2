# 1 "/src/hs_private.d"
# 1 "<built-in>" 1
# 1 "<built-in>" 3
# 331 "<built-in>" 3
# 1 "<command line>" 1
# 1 "<built-in>" 2
# 1 "/src/hs_private.d" 2
# 25 "/src/hs_private.d"
provider hs_private {
  probe safepoint__begin();
  probe broken(int;
};

#include "inc/q.d"

/* Functions zlbench never uses (after git's banned.h): unbounded copies, shells, strtok. */
#ifndef ZLBENCH_BANNED_H
#define ZLBENCH_BANNED_H

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef system
#define system(x) BANNED(system)
#undef popen
#define popen(x, y) BANNED(popen)

#endif

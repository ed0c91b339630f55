/*
 * bcryptprimitives.dll for Wine 8 (Debian 12's), which lacks it: Go 1.24
 * and later call its ProcessPrng at start and stop with "bcryptprimitives.dll
 * not found" without it. Windows 10 and 11 have the real one; this stand-in
 * draws from the same system generator through RtlGenRandom
 * (advapi32's SystemFunction036), which Wine has. scripts/wine-exec.sh
 * builds it with mingw into its throwaway Wine prefix; it never ships.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
	while (size > 0) {
		ULONG n = size > 0x10000000 ? 0x10000000 : (ULONG)size;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		size -= n;
	}
	return TRUE;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kcore_read ADDRESS LEN: print LEN bytes of kernel virtual memory at
 * ADDRESS (hex) as /proc/kcore gives them, in hex, as "%*phN" prints them:
 * the program header whose segment holds ADDRESS says where in the file.
 */
#define PROG "kcore_read"
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>
#include "util.h"

int main(int argc, char **argv)
{
	unsigned char buf[256];
	unsigned long long addr;
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	size_t len, i;
	int fd, n;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ADDRESS LEN\n", PROG);
		return 2;
	}
	addr = strtoull(argv[1], NULL, 16);
	len = strtoul(argv[2], NULL, 0);
	if (!len || len > sizeof(buf)) {
		fprintf(stderr, "%s: LEN must be 1 to %zu\n", PROG, sizeof(buf));
		return 2;
	}
	fd = open("/proc/kcore", O_RDONLY);
	if (fd < 0)
		die("/proc/kcore");
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		die("ELF header");
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64) {
		fprintf(stderr, "%s: not a 64-bit ELF file\n", PROG);
		return 1;
	}
	for (n = 0; n < eh.e_phnum; n++) {
		if (pread(fd, &ph, sizeof(ph),
			  eh.e_phoff + (off_t)n * eh.e_phentsize) != sizeof(ph))
			die("program header");
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    addr + len > ph.p_vaddr + ph.p_memsz)
			continue;
		if (pread(fd, buf, len, ph.p_offset + (addr - ph.p_vaddr)) !=
		    (ssize_t)len)
			die("reading the segment");
		for (i = 0; i < len; i++)
			printf("%02x", buf[i]);
		printf("\n");
		return 0;
	}
	fprintf(stderr, "%s: no segment holds %#llx\n", PROG, addr);
	return 1;
}

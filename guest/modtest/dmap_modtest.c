// SPDX-License-Identifier: GPL-2.0
/*
 * A module whose text is written as a module's text is: the loader
 * applies an alternative before the text is sealed; init then patches a
 * static key and a static call of its own in the sealed text, and places
 * an int3 kprobe on a function of its own (its instruction slot comes
 * from execmem), each checked by calling the code. Its text, init text, read-only data and
 * read-only-after-init data must come from execmem's pools: read-only and
 * not executable in the direct map, in a large page, and a write through
 * the direct map must fault.
 *
 * debugfs dmap_modtest/check repeats the checks once init is over (the
 * init text must be gone, ro_after_init sealed). dmap_modtest/bytes
 * prints the address and first bytes of its text, its rodata and, with
 * the BPF JIT on, the image of a program it JITs at init (in a BPF pack:
 * a whole chunk, mapped with one PMD), as the module reads them, for
 * /proc/kcore to be compared with; and a page of __GFP_UNMAPPED vmalloc
 * memory, written here, which /proc/kcore must read as zeroes, as it reads
 * the direct map of a secret page. Writing to
 * dmap_modtest/provoke oopses the writer, as LKDTM does: "text",
 * "rodata" and "ro_after_init" write through the direct map, "init_text"
 * calls the freed init text. The module cannot be removed after that.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/filter.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/alternative.h>
#include <asm/cpufeatures.h>

static DEFINE_STATIC_KEY_FALSE(modtest_key);

static int modtest_add1(int x)
{
	return x + 1;
}

static int modtest_add2(int x)
{
	return x + 2;
}

DEFINE_STATIC_CALL(modtest_call, modtest_add1);

static const u32 modtest_rodata[] = { 0x646d6170, 0x5f706f6f, 0x6c000000 };
static u32 modtest_after_init __ro_after_init = 1;
static unsigned long modtest_init_addr;
static struct page *modtest_init_page;
static struct dentry *modtest_dir;
static int modtest_hits;
static struct bpf_prog *modtest_prog;
static u8 *modtest_unmapped;

static noinline int modtest_branch(void)
{
	if (static_branch_unlikely(&modtest_key))
		return 1;
	return 0;
}

static noinline int modtest_alternative(void)
{
	int v;

	/* X86_FEATURE_ALWAYS: the loader must have patched it in. */
	asm volatile(ALTERNATIVE("mov $1, %0", "mov $2, %0",
				 X86_FEATURE_ALWAYS) : "=r" (v));
	return v;
}

/* notrace: an int3 kprobe, not one on the ftrace call site. */
static noinline notrace int modtest_probed(int x)
{
	barrier();
	return x * 3;
}

static int modtest_pre(struct kprobe *kp, struct pt_regs *regs)
{
	modtest_hits++;
	return 0;
}

static struct kprobe modtest_kp = {
	.pre_handler = modtest_pre,
};

/*
 * @addr, mapped in the module range as @rw and @nx say, must be a page
 * whose direct-map alias is read-only, not executable, in a large page,
 * and not writable through it.
 */
static int modtest_check(const char *what, const void *addr, bool rw, bool nx)
{
	struct page *page = vmalloc_to_page(addr);
	unsigned long alias;
	unsigned int level;
	pte_t *pte;
	char c;

	if (!page) {
		pr_err("%s: %p is not mapped in the module range\n", what, addr);
		return -EINVAL;
	}
	pte = lookup_address((unsigned long)addr, &level);
	if (!pte || !pte_present(*pte) ||
	    !!(pte_flags(*pte) & _PAGE_RW) != rw ||
	    !!(pte_flags(*pte) & _PAGE_NX) != nx) {
		pr_err("%s: module mapping %s, want %s%s\n", what,
		       !pte || !pte_present(*pte) ? "not present" :
		       pte_flags(*pte) & _PAGE_RW ? "writable" : "read-only",
		       rw ? "writable" : "read-only", nx ? ", NX" : ", X");
		return -EINVAL;
	}

	alias = (unsigned long)page_address(page);
	pte = lookup_address(alias, &level);
	if (!pte || !pte_present(*pte)) {
		pr_err("%s: direct map of pfn %#lx not present\n", what,
		       page_to_pfn(page));
		return -EINVAL;
	}
	if (pte_flags(*pte) & _PAGE_RW) {
		pr_err("%s: direct map of pfn %#lx writable\n", what,
		       page_to_pfn(page));
		return -EINVAL;
	}
	if (!(pte_flags(*pte) & _PAGE_NX)) {
		pr_err("%s: direct map of pfn %#lx executable\n", what,
		       page_to_pfn(page));
		return -EINVAL;
	}
	if (level < PG_LEVEL_2M) {
		pr_err("%s: direct map of pfn %#lx in a 4K page\n", what,
		       page_to_pfn(page));
		return -EINVAL;
	}
	/* The byte already there: harmless if the write went through. */
	c = *(char *)alias;
	pagefault_disable();
	__put_kernel_nofault((void *)alias, &c, u8, refused);
	pagefault_enable();
	pr_err("%s: a write through the direct map went through\n", what);
	return -EINVAL;
refused:
	pagefault_enable();
	return 0;
}

static int __init modtest_init_text(void)
{
	return 42;
}

/* Patch each kind of text site, sealed as it is, and run it. */
static int __init modtest_patch(void)
{
	int ret;

	if (modtest_alternative() != 2) {
		pr_err("alternative not applied\n");
		return -EINVAL;
	}

	if (modtest_branch() != 0)
		return -EINVAL;
	static_branch_enable(&modtest_key);
	ret = modtest_branch();
	static_branch_disable(&modtest_key);
	if (ret != 1 || modtest_branch() != 0) {
		pr_err("static key: %d after enable\n", ret);
		return -EINVAL;
	}

	if (static_call(modtest_call)(1) != 2)
		return -EINVAL;
	static_call_update(modtest_call, modtest_add2);
	ret = static_call(modtest_call)(1);
	static_call_update(modtest_call, modtest_add1);
	if (ret != 3 || static_call(modtest_call)(1) != 2) {
		pr_err("static call: %d after update\n", ret);
		return -EINVAL;
	}

	modtest_kp.addr = (kprobe_opcode_t *)modtest_probed;
	ret = register_kprobe(&modtest_kp);
	if (ret) {
		pr_err("register_kprobe: %d\n", ret);
		return ret;
	}
	ret = modtest_probed(5);
	unregister_kprobe(&modtest_kp);
	if (ret != 15 || modtest_hits != 1) {
		pr_err("kprobe: %d, %d hits\n", ret, modtest_hits);
		return -EINVAL;
	}
	if (modtest_probed(2) != 6 || modtest_hits != 1)
		return -EINVAL;
	return 0;
}

static int modtest_show(struct seq_file *m, void *v)
{
	int ret;

	ret = modtest_check("text", modtest_probed, false, false);
	if (!ret)
		ret = modtest_check("rodata", modtest_rodata, false, true);
	if (!ret)
		ret = modtest_check("ro_after_init", &modtest_after_init,
				    false, true);
	if (!ret && modtest_probed(4) != 12)
		ret = -EINVAL;
	/* Its address may be another area's by now, never its page. */
	if (!ret &&
	    vmalloc_to_page((void *)modtest_init_addr) == modtest_init_page) {
		pr_err("init text %#lx still mapped\n", modtest_init_addr);
		ret = -EINVAL;
	}
	seq_printf(m, "%s\n", ret ? "fail" : "ok");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(modtest);

/* A program JITed when the JIT is on, or none: its image is in a pack. */
static void modtest_prog_jit(void)
{
	const struct bpf_insn insn[] = {
		BPF_MOV64_IMM(BPF_REG_0, 7),
		BPF_EXIT_INSN(),
	};
	struct bpf_prog *fp;
	int err;

	fp = bpf_prog_alloc(bpf_prog_size(ARRAY_SIZE(insn)), 0);
	if (!fp)
		return;
	fp->len = ARRAY_SIZE(insn);
	fp->type = BPF_PROG_TYPE_SOCKET_FILTER;
	memcpy(fp->insnsi, insn, sizeof(insn));
	fp = bpf_prog_select_runtime(fp, &err);
	if (err || !fp->jited) {
		bpf_prog_free(fp);
		return;
	}
	modtest_prog = fp;
}

/* "NAME ADDRESS HEX" of samples of text, rodata and a BPF image. */
static int modtest_bytes_show(struct seq_file *m, void *v)
{
	const struct {
		const char *name;
		const void *addr;
		unsigned int len;
	} s[] = {
		{ "text", modtest_check, 64 },
		{ "rodata", modtest_rodata, sizeof(modtest_rodata) },
		{ "bpf", modtest_prog ? modtest_prog->bpf_func : NULL,
		  modtest_prog ? min(modtest_prog->jited_len, 64U) : 0 },
	};
	static const u8 zero[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(s); i++)
		if (s[i].addr)
			seq_printf(m, "%s %lx %*phN\n", s[i].name,
				   (unsigned long)s[i].addr, (int)s[i].len,
				   s[i].addr);
	if (modtest_unmapped)
		seq_printf(m, "unmapped %lx %*phN\n",
			   (unsigned long)modtest_unmapped, (int)sizeof(zero),
			   zero);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(modtest_bytes);

static ssize_t modtest_provoke(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char buf[16];
	void *target;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strim(buf);

	if (!strcmp(buf, "init_text")) {
		int (*fn)(void) = (void *)modtest_init_addr;

		if (vmalloc_to_page((void *)modtest_init_addr)) {
			pr_err("FAIL: freed init text at %#lx mapped again\n",
			       modtest_init_addr);
			return -EBUSY;
		}
		pr_info("calling freed init text at %#lx\n", modtest_init_addr);
		pr_err("FAIL: freed init text ran: %d\n", fn());
		return count;
	}
	if (!strcmp(buf, "text"))
		target = modtest_probed;
	else if (!strcmp(buf, "rodata"))
		target = (void *)modtest_rodata;
	else if (!strcmp(buf, "ro_after_init"))
		target = &modtest_after_init;
	else
		return -EINVAL;

	target = page_address(vmalloc_to_page(target)) +
		 offset_in_page(target);
	pr_info("attempting a write to %s through the direct map\n", buf);
	WRITE_ONCE(*(u8 *)target, READ_ONCE(*(u8 *)target));
	pr_err("FAIL: survived a write to %s through the direct map\n", buf);
	return count;
}

static const struct file_operations modtest_provoke_fops = {
	.owner = THIS_MODULE,
	.write = modtest_provoke,
};

static int __init modtest_init(void)
{
	int ret;

	if (modtest_init_text() != 42)
		return -EINVAL;
	modtest_init_addr = (unsigned long)modtest_init_text;
	modtest_init_page = vmalloc_to_page(modtest_init_text);
	modtest_after_init = 2;

	ret = modtest_patch();
	if (!ret)
		ret = modtest_check("text", modtest_probed, false, false);
	if (!ret)
		ret = modtest_check("init text", modtest_init_text, false,
				    false);
	if (!ret)
		ret = modtest_check("rodata", modtest_rodata, false, true);
	/* Not sealed before init returns. */
	if (!ret)
		ret = modtest_check("ro_after_init", &modtest_after_init,
				    true, true);
	if (ret)
		return ret;

	modtest_prog_jit();
#ifdef __GFP_UNMAPPED
	/* Not in the direct map: only this mapping reads what is written. */
	modtest_unmapped = __vmalloc(PAGE_SIZE, GFP_KERNEL | __GFP_UNMAPPED);
	if (modtest_unmapped)
		memset(modtest_unmapped, 0x5a, PAGE_SIZE);
#endif
	modtest_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("check", 0444, modtest_dir, NULL, &modtest_fops);
	debugfs_create_file("bytes", 0444, modtest_dir, NULL,
			    &modtest_bytes_fops);
	debugfs_create_file("provoke", 0200, modtest_dir, NULL,
			    &modtest_provoke_fops);
	return 0;
}

static void __exit modtest_exit(void)
{
	debugfs_remove_recursive(modtest_dir);
	if (modtest_prog)
		bpf_prog_free(modtest_prog);
	vfree(modtest_unmapped);
}

module_init(modtest_init);
module_exit(modtest_exit);
MODULE_DESCRIPTION("Module text patched after sealing, from execmem's pools");
MODULE_LICENSE("GPL");

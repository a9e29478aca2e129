# dmap_pool: a patch series against Debian's linux-source-6.12, and the
# harness that builds, boots and tests it. "make help" lists the targets.

SCRIPTS := scripts

.PHONY: help deps tree build export test run bench clean

help:
	@echo "make test    build the series, boot it under QEMU, run KUnit, the"
	@echo "             guest tests and the static checks; ends 'N passed, N failed'"
	@echo "make run     boot the patched kernel, run the demo workloads and show"
	@echo "             the direct map before and after each, and the pools"
	@echo "make bench   boot the vanilla base and the series, run the same workloads,"
	@echo "             print the direct map of each side by side (build/bench/)"
	@echo "make tree    generate build/linux: the pinned base + patches/ (git am)"
	@echo "make export  write build/linux's commits back to patches/"
	@echo "make build   configure (configs/*.config) and build build/linux"
	@echo "make deps    install the Debian packages the harness needs"
	@echo "make clean   remove build/ (kernel objects, logs; not ccache)"

deps:
	@$(SCRIPTS)/deps.sh

tree: deps
	@$(SCRIPTS)/tree.sh

build: deps
	@$(SCRIPTS)/build.sh

export:
	@$(SCRIPTS)/export.sh

test:
	@$(SCRIPTS)/test.sh

run:
	@$(SCRIPTS)/run.sh

bench:
	@$(SCRIPTS)/bench.sh

clean:
	rm -rf build

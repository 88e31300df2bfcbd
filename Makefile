# SPDX-License-Identifier: GPL-2.0
#
# xblk: out-of-tree Xen PV block frontend (xblkfront) and backend (xblkback).
#
#   make                         build the modules for the running kernel
#   make KDIR=/path/to/build     build against another kernel tree
#   make check                   W=1 + sparse (C=1) build, warnings are errors
#   make style                   checkpatch --strict over our sources, and no
#                                function over 60 lines (scripts/funclen.sh)
#   make matrix                  build against every kernel line we support
#   make test-unit               userspace unit tests of the pure protocol code
#   make test                    everything CI runs (scripts/test-all.sh)
#   make lab-demo                boot Xen under QEMU and run fio through xblk
#   make bench                   in-tree pair vs xblk vs dom0 in the lab, three regimes
#                                (XLAB_OPTS=regime=r1|r2|r3 for one; Documentation/bench.rst)
#   make test-faults             hostile peers, faults, detach and save/restore (lab)
#   make test-faults-long        the same with the long cycle counts (50 detaches...)

KVER	?= $(shell uname -r)
# Without headers for the running kernel (CI may run on another kernel than
# Debian's), default to the 6.1 tree scripts/deps.sh prepared: the lab's.
KDIR	?= $(or $(wildcard /lib/modules/$(KVER)/build),\
		$(shell awk '$$1 == "6.1" { print $$2 }' /var/cache/xblk/kdirs 2>/dev/null),\
		/lib/modules/$(KVER)/build)
ROOT	:= $(CURDIR)

# Probe results depend on the kernel tree, so each tree gets its own header.
PROBE_DIR	= $(ROOT)/build/probe/$(subst /,_,$(abspath $(KDIR)))
AUTOCONF	= $(PROBE_DIR)/xblk_autoconf.h
KBUILD_ARGS	= -C $(KDIR) M=$(ROOT) XBLK_ROOT=$(ROOT) XBLK_AUTOCONF=$(AUTOCONF)

.PHONY: all modules clean probe check style matrix test-unit test test-long lab-demo test-faults test-faults-long test-k612 bench deps

all: modules

# scripts/probes itself: its time stamp changes when a probe is removed.
$(AUTOCONF): scripts/probe.sh scripts/probes $(wildcard scripts/probes/*.c)
	@test -f $(KDIR)/Makefile || { echo "no kernel build tree at KDIR=$(KDIR)" >&2; exit 1; }
	scripts/probe.sh $(KDIR) $(PROBE_DIR)

probe: $(AUTOCONF)

modules: $(AUTOCONF)
	$(MAKE) $(KBUILD_ARGS) modules

check: $(AUTOCONF)
	scripts/check.sh $(KDIR) $(AUTOCONF)

# Both run even if the first fails; checkpatch's count is the stage's count.
style:
	@rc=0; scripts/funclen.sh || rc=1; scripts/checkpatch.sh || rc=1; exit $$rc

matrix:
	scripts/matrix.sh

test-unit:
	$(MAKE) -C tests/unit

test:
	scripts/test-all.sh

test-long:
	scripts/test-all.sh --long

lab-demo:
	scripts/lab-demo.sh

test-faults:
	scripts/test-faults.sh

test-faults-long:
	scripts/test-faults.sh --long

test-k612:
	scripts/test-k612.sh

bench:
	scripts/bench.sh

deps:
	scripts/deps.sh

# A DKMS source tree (/usr/src/xblk-*) has no tests/.
clean:
	-test -f $(KDIR)/Makefile && $(MAKE) $(KBUILD_ARGS) clean
	rm -rf build
	-if [ -d tests/unit ]; then $(MAKE) -C tests/unit clean; fi

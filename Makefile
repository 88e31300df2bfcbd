# SPDX-License-Identifier: GPL-2.0
#
# xblk: out-of-tree Xen PV block frontend (xblkfront) and backend (xblkback).
#
#   make                         build the modules for the running kernel
#   make KDIR=/path/to/build     build against another kernel tree
#   make check                   W=1 + sparse (C=1) build, warnings are errors
#   make style                   checkpatch --strict over our sources, no
#                                function over 60 lines (scripts/funclen.sh),
#                                the files of each driver a one-way stack and
#                                none over 800 lines (scripts/callgraph.py)
#   make matrix                  build against every kernel line we support
#   make test-unit               userspace unit tests of the pure protocol code
#   make test                    everything CI runs (scripts/test-all.sh)
#   make lab-demo                boot Xen under QEMU and run fio through xblk
#   make bench                   in-tree pair vs xblk vs dom0 in the lab, three regimes
#                                (XLAB_OPTS=regime=r1|r2|r3 for one; Documentation/bench.rst)
#   make test-faults             hostile peers, faults, detach and save/restore (lab)
#   make test-faults-long        the same with the long cycle counts (50 detaches...)
#   make lab-dups                the lab's shape: no repeated helper, no suite named in
#                                tests/lab/run.sh (scripts/lab-dups.sh)
#   make install                 the modules into /lib/modules/<kernel>/updates/xblk/, depmod
#   make install-config          the blacklist of the in-tree pair and the initramfs hook,
#                                then every initramfs rebuilt (README.md, "Installing from
#                                source"); make uninstall takes both out again

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

.PHONY: all modules clean probe check style matrix test-unit test test-long lab-demo lab-dups test-faults test-faults-long test-k612 bench deps install install-config uninstall

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

# All run even if one fails; the last line sums checkpatch's and the doc
# checks' counts (funclen counts as one).
style:
	@scripts/style.sh

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

lab-dups:
	scripts/lab-dups.sh

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

# The kernel release of KDIR, its directory under /lib/modules (UTS_RELEASE:
# Debian's include/config/kernel.release says 6.1.192 for 6.1.0-57-amd64).
KREL	= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
INSTALL_MOD_DIR ?= updates/xblk
DEPMOD_ARGS = $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KREL)

# The modules into $(INSTALL_MOD_PATH)/lib/modules/<KDIR's release>/updates/xblk/
# (blkfront/xblkfront.ko, blkback/xblkback.ko; updates/ comes before the
# kernel's own modules), then depmod.  Unsigned:
# kbuild's signing needs the kernel's own key, which Debian's headers lack.
install: modules
	@test -n "$(KREL)" || { echo "no UTS_RELEASE in $(KDIR)/include/generated/utsrelease.h" >&2; exit 1; }
	$(MAKE) $(KBUILD_ARGS) KERNELRELEASE=$(KREL) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
		CONFIG_MODULE_SIG_ALL= modules_install
	depmod -a $(DEPMOD_ARGS)

# The blacklist of the in-tree pair and the initramfs hook (the package's
# files, under /etc here), then every initramfs rebuilt.  With DESTDIR: the
# files only.
install-config:
	install -D -m 0644 scripts/xblk-modprobe.conf $(DESTDIR)/etc/modprobe.d/xblk.conf
	install -D -m 0755 scripts/initramfs-hook $(DESTDIR)/etc/initramfs-tools/hooks/xblk
	@if [ -z "$(DESTDIR)" ] && command -v update-initramfs >/dev/null; then \
		echo "update-initramfs -u -k all"; update-initramfs -u -k all; fi

# Both taken out again (the modules of KDIR's kernel), then every initramfs
# rebuilt.
uninstall:
	@test -n "$(KREL)" || { echo "no UTS_RELEASE in $(KDIR)/include/generated/utsrelease.h" >&2; exit 1; }
	rm -rf $(INSTALL_MOD_PATH)/lib/modules/$(KREL)/$(INSTALL_MOD_DIR)
	depmod -a $(DEPMOD_ARGS)
	rm -f $(DESTDIR)/etc/modprobe.d/xblk.conf $(DESTDIR)/etc/initramfs-tools/hooks/xblk
	@if [ -z "$(DESTDIR)" ] && command -v update-initramfs >/dev/null; then \
		echo "update-initramfs -u -k all"; update-initramfs -u -k all; fi

# A DKMS source tree (/usr/src/xblk-*) has no tests/.
clean:
	-test -f $(KDIR)/Makefile && $(MAKE) $(KBUILD_ARGS) clean
	rm -rf build
	-if [ -d tests/unit ]; then $(MAKE) -C tests/unit clean; fi

# The two commands a new machine needs: `make demo` and `make test`. Both install missing system
# packages first (Debian/Ubuntu, as root or through sudo).
SWIFT ?= swift

.PHONY: all deps demo test test-fast build release library lv2 install uninstall tsan asan soak realtime-gate fuzz bench devices-start devices-stop piano clean

all: build

deps:
	@scripts/install-deps

build: deps piano
	$(SWIFT) build

## The release build carries the Swift runtime and Foundation inside its binaries: they run where
## no Swift toolchain is installed, and hold about 6 MB less resident memory than with the shared
## libraries (a font's load adds to that). Every release build uses the same flags, or each would
## rebuild the others' modules. (By product: the test support module needs XCTest, which has no
## static build.)
RELEASE_FLAGS ?= -c release --static-swift-stdlib
release: deps piano
	$(SWIFT) build $(RELEASE_FLAGS) --product staccato
	$(SWIFT) build $(RELEASE_FLAGS) --product staccato-bench

## libstaccato.so, the C ABI, with the Swift runtime inside it: see scripts/build-library.
library: deps
	RELEASE_FLAGS="$(RELEASE_FLAGS)" scripts/build-library

## The LV2 plug-in bundle, .build/release/lv2/staccato.lv2 (the Swift runtime inside its one shared
## object, which exports lv2_descriptor alone): see scripts/build-lv2. LV2_PATH=.build/release/lv2
## lets a host find it without installing.
lv2: deps
	RELEASE_FLAGS="$(RELEASE_FLAGS)" scripts/build-lv2

## Installs `staccato` and `staccato-bench` in PREFIX/bin; the LV2 plug-in in PREFIX/lib/lv2; the C library (libstaccato.so, its
## header and its pkg-config file) in PREFIX/lib and PREFIX/include; and what they ship with (the
## piano and xylophone font, the drum kit, the multi-layer piano, the demo song, each with its
## licence) in PREFIX/share/staccato, where the installed binaries and the library look for them
## (`InstrumentLoader.shippedFile`). `make install PREFIX=~/.local` needs no root; DESTDIR stages
## a package. The pkg-config file puts PREFIX/lib on the program's run path, so a program built
## with it runs from any prefix.
PREFIX ?= /usr/local
BINDIR = $(DESTDIR)$(PREFIX)/bin
LIBDIR = $(DESTDIR)$(PREFIX)/lib
LV2DIR = $(LIBDIR)/lv2/staccato.lv2
INCLUDEDIR = $(DESTDIR)$(PREFIX)/include
DATADIR = $(DESTDIR)$(PREFIX)/share/staccato
SHIPPED = soundfonts samples/drums samples/midi samples/piano samples/README.md
VERSION = $(shell sed -n 's/^public let staccatoVersion = "\(.*\)"$$/\1/p' Sources/Library/Engine/Version.swift)
SONAME = libstaccato.so.$(firstword $(subst ., ,$(VERSION)))
install: release library lv2
	install -d $(BINDIR) $(DATADIR)/samples $(LIBDIR)/pkgconfig $(INCLUDEDIR) $(LV2DIR)
	install -m 755 .build/release/staccato .build/release/staccato-bench $(BINDIR)/
	install -m 755 .build/release/$(SONAME) $(LIBDIR)/libstaccato.so.$(VERSION)
	ln -sf libstaccato.so.$(VERSION) $(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(LIBDIR)/libstaccato.so
	install -m 644 Sources/Fronts/CStaccato/include/staccato.h $(INCLUDEDIR)/
	install -m 755 .build/release/lv2/staccato.lv2/staccato.so $(LV2DIR)/
	install -m 644 .build/release/lv2/staccato.lv2/manifest.ttl .build/release/lv2/staccato.lv2/staccato.ttl $(LV2DIR)/
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' '' \
	    'Name: staccato' 'Description: Real-time sampler (SoundFont 2/3, SFZ) and MIDI renderer' 'Version: $(VERSION)' \
	    'Libs: -L$${libdir} -Wl,-rpath,$${libdir} -lstaccato' 'Cflags: -I$${includedir}' > $(LIBDIR)/pkgconfig/staccato.pc
	for item in $(SHIPPED); do cp -R $$item $(DATADIR)/$$(dirname $$item)/; done
	rm -f $(DATADIR)/samples/piano/make-piano.py $(DATADIR)/samples/piano/wav/.written

uninstall:
	rm -f $(BINDIR)/staccato $(BINDIR)/staccato-bench
	rm -f $(LIBDIR)/libstaccato.so $(LIBDIR)/$(SONAME) $(LIBDIR)/libstaccato.so.$(VERSION) $(LIBDIR)/pkgconfig/staccato.pc
	rm -f $(INCLUDEDIR)/staccato.h
	rm -rf $(LV2DIR)
	rm -rf $(DATADIR)

## Plays the demo through the default ALSA device, or renders it to demo.wav when nothing can play.
demo: release
	.build/release/staccato demo

## Runs every test against the virtual audio devices (scripts/test-audio): the fast tier, the
## real-time build gate, then the slow part (Tests/slow-tests), the ThreadSanitizer ring stress and
## the fuzz targets.
test: deps piano
	@scripts/install-deps --reference
	scripts/run-tests

## The fast tier alone: every test but the whole-song renders and plays and the loops over
## generated inputs (Tests/slow-tests), and the real-time gate.
test-fast: deps
	@scripts/install-deps --reference
	STACCATO_TEST_TIER=fast scripts/run-tests

tsan: deps
	TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test -c release --scratch-path .build/tsan --sanitize=thread \
	    --disable-swift-testing --filter LockfreeTests

## Every test under AddressSanitizer (scratch path .build/asan), devices up; see scripts/run-asan.
asan: deps
	scripts/run-asan

## Ten minutes on the paced device under random load; SOAK_SECONDS to change. See scripts/soak.
SOAK_SECONDS ?= 600
soak: deps
	scripts/soak --seconds $(SOAK_SECONDS)

realtime-gate:
	scripts/check-realtime-gate

## libFuzzer on the SF2 loader, the MIDI file reader, the MIDI byte-stream parser and the kit
## manifest: FUZZ_SECONDS each (default 30). scripts/fuzz --runs N for a count instead.
FUZZ_SECONDS ?= 30
fuzz: deps
	scripts/fuzz --seconds $(FUZZ_SECONDS)

bench: release
	.build/release/staccato-bench ring

## The shipped piano as an SFZ instrument (samples/piano/piano.sfz): writes its samples out of the
## shipped font (7.5 MB of WAV, kept out of the repository), once; every build makes it, so
## `--soundfont samples/piano/piano.sfz` plays after `make`, `make demo` or `make test`.
PIANO_SAMPLES = samples/piano/wav/.written
piano: $(PIANO_SAMPLES)
$(PIANO_SAMPLES): samples/piano/make-piano.py soundfonts/FluidR3_GM_piano_xylo.sf2 scripts/sf2_hydra.py
	python3 samples/piano/make-piano.py
	touch $@

devices-start: deps
	scripts/test-audio start

devices-stop:
	scripts/test-audio stop

clean:
	rm -rf .build demo.wav

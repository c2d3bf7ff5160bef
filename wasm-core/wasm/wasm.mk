# wasm/wasm.mk — the WebAssembly build (included by ../Makefile).
# Part of the recorded source hash: changing a flag here requires `make wasm`.

EMCC ?= emcc
WASM_OUT := ../packages/core/wasm/termite_core.wasm
WASM_EXPORTS := $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' -e 's/^[[:space:]]*/_/' -e 's/[[:space:]]*$$//' wasm/exports.txt | paste -sd, -)
WASM_FLAGS := -std=c11 -O2 -flto -Wall -Wextra -Werror $(INC) --no-entry \
  -fno-exceptions -sSTANDALONE_WASM=0 -sFILESYSTEM=0 -sALLOW_MEMORY_GROWTH=1 \
  -sINITIAL_MEMORY=2MB -sTOTAL_STACK=512KB -sMAXIMUM_MEMORY=4GB \
  -sEXPORTED_FUNCTIONS=$(WASM_EXPORTS)

wasm: $(SRCS) $(HDRS) wasm/glue.c wasm/exports.txt wasm/wasm.mk
	@mkdir -p $(dir $(WASM_OUT))
	NODE_PATH=/usr/share/nodejs $(EMCC) $(WASM_FLAGS) $(SRCS) wasm/glue.c -o $(WASM_OUT)
	$(NODE) wasm/source-hash.mjs --write

#include "textflag.h"

// func prefetchIndexed(base *uint64, idx []uint32, above uint32, link bool)
TEXT ·prefetchIndexed(SB), NOSPLIT|NOFRAME, $0-37
	MOVD base+0(FP), R0
	MOVD idx_base+8(FP), R1
	MOVD idx_len+16(FP), R2
	MOVWU above+32(FP), R5
	MOVBU link+36(FP), R6
	CBZ R2, done
loop:
	MOVWU.P 4(R1), R3
	CMPW R5, R3
	BLS next
	CBZ R6, fetch
	ADD R3<<3, R0, R4
	MOVWU (R4), R3 // the word's low half: the number to fetch instead
fetch:
	ADD R3<<3, R0, R4
	PRFM (R4), PLDL1KEEP
next:
	SUB $1, R2
	CBNZ R2, loop
done:
	RET

// func StoreShared(p *uint64, x uint64)
TEXT ·StoreShared(SB), NOSPLIT|NOFRAME, $0-16
	MOVD p+0(FP), R0
	MOVD x+8(FP), R1
	MOVD R1, (R0)
	RET

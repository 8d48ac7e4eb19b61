#include "textflag.h"

// func prefetchIndexed(base *uint64, idx []uint32, above uint32, link bool)
TEXT ·prefetchIndexed(SB), NOSPLIT|NOFRAME, $0-37
	MOVQ base+0(FP), AX
	MOVQ idx_base+8(FP), SI
	MOVQ idx_len+16(FP), CX
	MOVL above+32(FP), BX
	MOVBLZX link+36(FP), DI
	TESTQ CX, CX
	JEQ done
loop:
	MOVL (SI), DX
	CMPL DX, BX
	JLS next
	TESTL DI, DI
	JEQ fetch
	MOVL (AX)(DX*8), DX // the word's low half: the number to fetch instead
fetch:
	PREFETCHT0 (AX)(DX*8)
next:
	ADDQ $4, SI
	DECQ CX
	JNE loop
done:
	RET

// func StoreShared(p *uint64, x uint64)
TEXT ·StoreShared(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ x+8(FP), BX
	MOVQ BX, (AX)
	RET

#include "textflag.h"

// func prefetchWords(base *uint64, idx []uint32, above uint32)
TEXT ·prefetchWords(SB), NOSPLIT|NOFRAME, $0-36
	MOVQ base+0(FP), AX
	MOVQ idx_base+8(FP), SI
	MOVQ idx_len+16(FP), CX
	MOVL above+32(FP), BX
	TESTQ CX, CX
	JEQ done
loop:
	MOVL (SI), DX
	CMPL DX, BX
	JLS next
	PREFETCHT0 (AX)(DX*8)
next:
	ADDQ $4, SI
	DECQ CX
	JNE loop
done:
	RET

// func prefetchLinks(base *uint64, idx []uint32, above uint32)
TEXT ·prefetchLinks(SB), NOSPLIT|NOFRAME, $0-36
	MOVQ base+0(FP), AX
	MOVQ idx_base+8(FP), SI
	MOVQ idx_len+16(FP), CX
	MOVL above+32(FP), BX
	TESTQ CX, CX
	JEQ done
loop:
	MOVL (SI), DX
	CMPL DX, BX
	JLS next
	MOVL (AX)(DX*8), DX
	PREFETCHT0 (AX)(DX*8)
next:
	ADDQ $4, SI
	DECQ CX
	JNE loop
done:
	RET

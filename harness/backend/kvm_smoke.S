/* The KVM smoke test's firmware (backend/kvm_smoke.cc holds these bytes; kvm_smoke_test.cc
 * checks they match when binutils is there): 64 KiB, loaded with -bios, so it starts at the
 * x86 reset vector. It enters 32-bit protected mode, maps 128 MiB with 4 MiB pages, turns
 * paging on, writes to every 4 KiB page from 8 MiB to 120 MiB and reports through QEMU's
 * isa-debug-exit port (iobase 0xf4): QEMU exits with status (0x31 << 1) | 1 = 99.
 * Under broken nested virtualization this is where KVM fails: an openable /dev/kvm, a
 * real-mode guest that runs, and a guest with paging that does not finish in 30 s (nor does the
 * kernel: it is still in clear_bss after 4 s). Under TCG it takes a third of a second.
 * as --32 kvm_smoke.S -o kvm_smoke.o && objcopy -O binary kvm_smoke.o kvm_smoke.bin */
.code16
.org 0
start:
  cli
  xor %ax, %ax
  mov %ax, %ds
  lgdtl %cs:gdtr
  mov %cr0, %eax
  or $1, %eax
  mov %eax, %cr0
  ljmpl $0x08, $(0xf0000 + pm)
.code32
pm:
  mov $0x10, %ax
  mov %ax, %ds
  mov %ax, %es
  mov %ax, %ss
  /* page directory at 0x100000: 32 PSE entries of 4 MiB, identity */
  mov $0x100000, %edi
  xor %ecx, %ecx
2:
  mov %ecx, %eax
  shl $22, %eax
  or $0x83, %eax
  mov %eax, (%edi,%ecx,4)
  inc %ecx
  cmp $32, %ecx
  jb 2b
  mov %cr4, %eax
  or $0x10, %eax
  mov %eax, %cr4
  mov $0x100000, %eax
  mov %eax, %cr3
  mov %cr0, %eax
  or $0x80000000, %eax
  mov %eax, %cr0
  /* touch every 4 KiB page from 8 MiB to 120 MiB */
  mov $0x800000, %edi
3:
  movl %edi, (%edi)
  add $4096, %edi
  cmp $0x7800000, %edi
  jb 3b
  mov $0x31, %al
  out %al, $0xf4
  hlt
.align 8
gdt:
  .quad 0
  .quad 0x00cf9a000000ffff
  .quad 0x00cf92000000ffff
gdtr:
  .word 23
  .long 0xf0000 + gdt
.code16
.org 0xfff0
  ljmp $0xf000, $start
.org 0x10000

/*
 * calcl.h: the CAL compiler API of the ATI Stream SDK, as implemented by ilc's CAL runtime
 * (libaticalcl is the same library as libaticalrt). calclCompile runs ilc: the object and
 * the linked image hold an sm_50 cubin. Declarations and comments are ilc's own; values and
 * signatures follow the published SDK headers.
 */
#ifndef __CALCL_H__
#define __CALCL_H__

#include "cal.h"

/* CALAPI and CALAPIENTRY are cal.h's. */
#ifdef __cplusplus
extern "C" {
#endif

typedef enum CALlanguageEnum {
    CAL_LANGUAGE_IL = 1, /* AMD IL text */
    CAL_LANGUAGE_ISA = 2 /* device ISA text: not supported by ilc */
} CALlanguage;

typedef enum CALCLprogramTypeEnum { CAL_PROGRAM_TYPE_PS, CAL_PROGRAM_TYPE_CS } CALCLprogramType;

/* Receives the disassembly, one line per call (each ends with a newline). */
typedef void (*CALLogFunction)(const char *msg);

CALAPI CALresult CALAPIENTRY calclGetVersion(CALuint *major, CALuint *minor, CALuint *imp);
CALAPI CALresult CALAPIENTRY calclCompile(CALobject *obj, CALlanguage language,
                                          const CALchar *source, CALtarget target);
CALAPI CALresult CALAPIENTRY calclLink(CALimage *image, CALobject *obj, CALuint objCount);
CALAPI CALresult CALAPIENTRY calclFreeObject(CALobject obj);
CALAPI CALresult CALAPIENTRY calclFreeImage(CALimage image);
CALAPI void CALAPIENTRY calclDisassembleImage(const CALimage image, CALLogFunction logfunc);
CALAPI void CALAPIENTRY calclDisassembleObject(const CALobject *obj, CALLogFunction logfunc);
CALAPI CALresult CALAPIENTRY calclAssembleObject(CALobject *obj, CALCLprogramType type,
                                                 const CALchar *source, CALtarget target);
CALAPI CALresult CALAPIENTRY calclImageGetSize(CALuint *size, CALimage image);
CALAPI CALresult CALAPIENTRY calclImageWrite(CALvoid *buffer, CALuint size, CALimage image);
/* The text of the last compiler error of this thread (ilc's diagnostics for calclCompile). */
CALAPI const CALchar *CALAPIENTRY calclGetErrorString(void);

#ifdef __cplusplus
}
#endif

#endif /* __CALCL_H__ */

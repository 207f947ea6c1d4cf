/*
 * cal_ext.h: CAL extensions, as implemented by ilc's CAL runtime. calExtGetProc hands out the
 * compute-shader entry points (CAL_EXT_COMPUTE_SHADER) and calResCreate1D/2D
 * (CAL_EXT_RES_CREATE); the other extension ids are known but unsupported. Values follow
 * the published SDK headers; the text is ilc's own.
 */
#ifndef __CAL_EXT_H__
#define __CAL_EXT_H__

#include "cal.h"

/* CALAPI and CALAPIENTRY are cal.h's. */
#ifdef __cplusplus
extern "C" {
#endif

#ifndef CALAPIENTRYP
#define CALAPIENTRYP CALAPIENTRY *
#endif

typedef enum CALextidEnum {
    CAL_EXT_D3D9 = 0x1001,
    CAL_EXT_RESERVED = 0x1002,
    CAL_EXT_D3D10 = 0x1003,
    CAL_EXT_COUNTERS = 0x1004,
    CAL_EXT_DOMAIN_PARAMS = 0x1005,
    CAL_EXT_RES_CREATE = 0x1006,
    CAL_EXT_COMPUTE_SHADER = 0x1007,
    CAL_EXT_SAMPLER_PARAM = 0x1008
} CALextid;

typedef CALvoid *CALextproc;

CALAPI CALresult CALAPIENTRY calExtSupported(CALextid extid);
CALAPI CALresult CALAPIENTRY calExtGetVersion(CALuint *major, CALuint *minor, CALextid extid);
CALAPI CALresult CALAPIENTRY calExtGetProc(CALextproc *proc, CALextid extid,
                                           const CALchar *procname);

/* CAL_EXT_COMPUTE_SHADER */
typedef CALresult(CALAPIENTRYP PFNCALCTXRUNPROGRAMGRID)(CALevent *event, CALcontext ctx,
                                                        CALprogramGrid *pProgramGrid);
typedef CALresult(CALAPIENTRYP PFNCALCTXRUNPROGRAMGRIDARRAY)(CALevent *event, CALcontext ctx,
                                                             CALprogramGridArray *pGridArray);
typedef CALresult(CALAPIENTRYP PFNCALMODULEGETFUNCINFO)(CALfuncInfo *pInfo, CALcontext ctx,
                                                        CALmodule module, CALfunc func);

/* CAL_EXT_RES_CREATE: resources over application memory (size bytes at mem, at least
 * width x height elements, pitch = width, valid until calResFree). */
typedef CALresult(CALAPIENTRYP PFNCALRESCREATE2D)(CALresource *res, CALdevice dev, CALvoid *mem,
                                                  CALuint width, CALuint height,
                                                  CALformat format, CALuint size, CALuint flags);
typedef CALresult(CALAPIENTRYP PFNCALRESCREATE1D)(CALresource *res, CALdevice dev, CALvoid *mem,
                                                  CALuint width, CALformat format, CALuint size,
                                                  CALuint flags);

#ifdef __cplusplus
}
#endif

#endif /* __CAL_EXT_H__ */

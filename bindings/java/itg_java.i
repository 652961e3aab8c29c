/* The Java side of libitg's SWIG interface: the raw layer in package
 * org.libitg, package-private, under the hand-written classes (Receiver,
 * Sender, Stats, Wire, ...). Generated with
 *   swig -java -package org.libitg -I<tree>/include -I<tree>/bindings/swig
 * by build-jni.sh, which Maven runs.
 *
 * How C types cross into Java here:
 *   - C strings travel as byte[] holding UTF-8 (with the terminating NUL on
 *     the way in), converted by the Text class on the Java side: JNI's own
 *     string functions speak "modified UTF-8", which is not what a file
 *     name or a host name holds;
 *   - uint64_t is a Java long holding the same 64 bits (sequence numbers
 *     and counters; Long's unsigned methods read them), not a BigInteger;
 *   - enums are plain int constants; the public classes have Java enums;
 *   - structs are allocated by the caller and freed by it (the proxies are
 *     AutoCloseable, and no finalizer frees them behind its back);
 *   - a negative status comes back as the int it is: the public classes
 *     turn it into an ItgException.
 */
%module(jniclassname="ItgCJNI") ItgC

%pragma(java) jniclassclassmodifiers="final class"
%pragma(java) moduleclassmodifiers="final class"
#if SWIG_VERSION >= 0x040300
%pragma(java) constantsmodifiers="interface"
#endif
%pragma(java) jniclasscode=%{
  static {
    NativeLibrary.load();
  }
%}

%include <enumtypeunsafe.swg>

%{
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "itg.h"
%}

/* Nothing of the raw layer is public. */
%typemap(javaclassmodifiers) SWIGTYPE, SWIGTYPE *, SWIGTYPE &, SWIGTYPE [],
    enum SWIGTYPE "final class"
%typemap(javafinalize) SWIGTYPE ""
%typemap(javainterfaces) SWIGTYPE "AutoCloseable"
%typemap(javacode) SWIGTYPE %{
  @Override
  public void close() {
    delete();
  }
%}

/* ---- integers ------------------------------------------------------------ */

%typemap(jni) uint64_t "jlong"
%typemap(jtype) uint64_t "long"
%typemap(jstype) uint64_t "long"
%typemap(javain) uint64_t "$javainput"
%typemap(javaout) uint64_t { return $jnicall; }
%typemap(in) uint64_t %{ $1 = (uint64_t)$input; %}
%typemap(out) uint64_t %{ $result = (jlong)$1; %}

/* ---- strings: UTF-8 bytes -------------------------------------------------- */

%{
/* Throws IllegalArgumentException unless the array is a C string: some
 * bytes ending with the only NUL (Text.cString builds them so). */
static int itgj_check_cstring(JNIEnv *jenv, jbyteArray a, const jbyte *b)
{
  jsize n = (*jenv)->GetArrayLength(jenv, a);
  if (n < 1 || b[n - 1] != 0 || memchr(b, 0, (size_t)n) != &b[n - 1]) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException,
                            "not a NUL-terminated string");
    return 0;
  }
  return 1;
}

/* A new byte[] holding the bytes of s up to its NUL, at most max of them,
 * or null for a NULL s. */
static jbyteArray itgj_bytes(JNIEnv *jenv, const char *s, size_t max)
{
  jbyteArray a;
  size_t n = 0;
  if (!s)
    return NULL;
  while (n < max && s[n])
    n++;
  a = (*jenv)->NewByteArray(jenv, (jsize)n);
  if (a)
    (*jenv)->SetByteArrayRegion(jenv, a, 0, (jsize)n, (const jbyte *)s);
  return a;
}
%}

%typemap(jni) const char *, char [ANY] "jbyteArray"
%typemap(jtype) const char *, char [ANY] "byte[]"
%typemap(jstype) const char *, char [ANY] "String"
%typemap(javain) const char *, char [ANY] "Text.cString($javainput)"
%typemap(javaout) const char *, char [ANY] { return Text.string($jnicall); }
%typemap(in) const char *, char [ANY] {
  $1 = NULL;
  if ($input) {
    $1 = ($1_ltype)(*jenv)->GetByteArrayElements(jenv, $input, NULL);
    if (!$1)
      return $null;
    if (!itgj_check_cstring(jenv, $input, (const jbyte *)$1)) {
      (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte *)$1, JNI_ABORT);
      return $null;
    }
  }
}
%typemap(freearg) const char *, char [ANY] {
  if ($1)
    (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte *)$1, JNI_ABORT);
}
%typemap(out) const char * %{ $result = itgj_bytes(jenv, $1, (size_t)-1); %}
%typemap(out) char [ANY] %{ $result = itgj_bytes(jenv, $1, $1_dim0); %}

/* ---- the conventions of bindings/swig/itg_core.i ---------------------------- */

/* A constructor's out-parameter: a one-element array of the handle's
 * proxy, filled (or set to null) when the call returns. */
%typemap(jni) SWIGTYPE **ITG_NEW_HANDLE "jlongArray"
%typemap(jtype) SWIGTYPE **ITG_NEW_HANDLE "long[]"
%typemap(jstype) SWIGTYPE **ITG_NEW_HANDLE "$*javaclassname[]"
%typemap(javain,
         pre="    long[] ptr$javainput = new long[1];",
         post="      $javainput[0] = ptr$javainput[0] == 0 ? null : new $*javaclassname(ptr$javainput[0], false);")
    SWIGTYPE **ITG_NEW_HANDLE "ptr$javainput"
%typemap(in) SWIGTYPE **ITG_NEW_HANDLE ($*1_ltype handle = NULL) {
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException,
                            "no place for the handle");
    return $null;
  }
  $1 = &handle;
}
%typemap(argout) SWIGTYPE **ITG_NEW_HANDLE {
  jlong p = 0;
  *($*1_ltype *)&p = handle$argnum;
  (*jenv)->SetLongArrayRegion(jenv, $input, 0, 1, &p);
}

/* Bytes read by the call: a byte[] (null gives NULL and 0). */
%typemap(jni) (const uint8_t *ITG_BYTES_IN, size_t ITG_LEN) "jbyteArray"
%typemap(jtype) (const uint8_t *ITG_BYTES_IN, size_t ITG_LEN) "byte[]"
%typemap(jstype) (const uint8_t *ITG_BYTES_IN, size_t ITG_LEN) "byte[]"
%typemap(javain) (const uint8_t *ITG_BYTES_IN, size_t ITG_LEN) "$javainput"
%typemap(in) (const uint8_t *ITG_BYTES_IN, size_t ITG_LEN) {
  $1 = NULL;
  $2 = 0;
  if ($input) {
    $1 = ($1_ltype)(*jenv)->GetByteArrayElements(jenv, $input, NULL);
    if (!$1)
      return $null;
    $2 = (size_t)(*jenv)->GetArrayLength(jenv, $input);
  }
}
%typemap(freearg) (const uint8_t *ITG_BYTES_IN, size_t ITG_LEN) {
  if ($1)
    (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte *)$1, JNI_ABORT);
}

/* Bytes written by the call: a byte[] whose contents are copied back. */
%typemap(jni) (uint8_t *ITG_BYTES_OUT, size_t ITG_LEN),
    (char *ITG_TEXT_OUT, size_t ITG_LEN) "jbyteArray"
%typemap(jtype) (uint8_t *ITG_BYTES_OUT, size_t ITG_LEN),
    (char *ITG_TEXT_OUT, size_t ITG_LEN) "byte[]"
%typemap(jstype) (uint8_t *ITG_BYTES_OUT, size_t ITG_LEN),
    (char *ITG_TEXT_OUT, size_t ITG_LEN) "byte[]"
%typemap(javain) (uint8_t *ITG_BYTES_OUT, size_t ITG_LEN),
    (char *ITG_TEXT_OUT, size_t ITG_LEN) "$javainput"
%typemap(in) (uint8_t *ITG_BYTES_OUT, size_t ITG_LEN),
    (char *ITG_TEXT_OUT, size_t ITG_LEN) {
  $1 = NULL;
  $2 = 0;
  if ($input) {
    $1 = ($1_ltype)(*jenv)->GetByteArrayElements(jenv, $input, NULL);
    if (!$1)
      return $null;
    $2 = (size_t)(*jenv)->GetArrayLength(jenv, $input);
  }
}
%typemap(freearg) (uint8_t *ITG_BYTES_OUT, size_t ITG_LEN),
    (char *ITG_TEXT_OUT, size_t ITG_LEN) {
  if ($1)
    (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte *)$1, 0);
}

/* A fixed-size buffer: a byte[] of at least ITG_FIXED_LEN(function)
 * bytes. */
%typemap(jni) const uint8_t *ITG_FIXED_IN, uint8_t *ITG_FIXED_OUT "jbyteArray"
%typemap(jtype) const uint8_t *ITG_FIXED_IN, uint8_t *ITG_FIXED_OUT "byte[]"
%typemap(jstype) const uint8_t *ITG_FIXED_IN, uint8_t *ITG_FIXED_OUT "byte[]"
%typemap(javain) const uint8_t *ITG_FIXED_IN, uint8_t *ITG_FIXED_OUT "$javainput"
%typemap(in) const uint8_t *ITG_FIXED_IN, uint8_t *ITG_FIXED_OUT {
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < (jsize)ITG_FIXED_LEN($symname)) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIndexOutOfBoundsException,
                            "buffer shorter than $symname needs");
    return $null;
  }
  $1 = ($1_ltype)(*jenv)->GetByteArrayElements(jenv, $input, NULL);
  if (!$1)
    return $null;
}
%typemap(freearg) const uint8_t *ITG_FIXED_IN {
  (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte *)$1, JNI_ABORT);
}
%typemap(freearg) uint8_t *ITG_FIXED_OUT {
  (*jenv)->ReleaseByteArrayElements(jenv, $input, (jbyte *)$1, 0);
}

/* Doubles read by the call: a double[]. */
%typemap(jni) (const double *ITG_DOUBLES_IN, size_t ITG_COUNT) "jdoubleArray"
%typemap(jtype) (const double *ITG_DOUBLES_IN, size_t ITG_COUNT) "double[]"
%typemap(jstype) (const double *ITG_DOUBLES_IN, size_t ITG_COUNT) "double[]"
%typemap(javain) (const double *ITG_DOUBLES_IN, size_t ITG_COUNT) "$javainput"
%typemap(in) (const double *ITG_DOUBLES_IN, size_t ITG_COUNT) {
  $1 = NULL;
  $2 = 0;
  if ($input) {
    $1 = ($1_ltype)(*jenv)->GetDoubleArrayElements(jenv, $input, NULL);
    if (!$1)
      return $null;
    $2 = (size_t)(*jenv)->GetArrayLength(jenv, $input);
  }
}
%typemap(freearg) (const double *ITG_DOUBLES_IN, size_t ITG_COUNT) {
  if ($1)
    (*jenv)->ReleaseDoubleArrayElements(jenv, $input, (jdouble *)$1, JNI_ABORT);
}

/* Ints written by the call: an int[] whose contents are copied back. */
%typemap(jni) (int *ITG_INTS_OUT, size_t ITG_COUNT) "jintArray"
%typemap(jtype) (int *ITG_INTS_OUT, size_t ITG_COUNT) "int[]"
%typemap(jstype) (int *ITG_INTS_OUT, size_t ITG_COUNT) "int[]"
%typemap(javain) (int *ITG_INTS_OUT, size_t ITG_COUNT) "$javainput"
%typemap(in) (int *ITG_INTS_OUT, size_t ITG_COUNT) {
  $1 = NULL;
  $2 = 0;
  if ($input) {
    $1 = ($1_ltype)(*jenv)->GetIntArrayElements(jenv, $input, NULL);
    if (!$1)
      return $null;
    $2 = (size_t)(*jenv)->GetArrayLength(jenv, $input);
  }
}
%typemap(freearg) (int *ITG_INTS_OUT, size_t ITG_COUNT) {
  if ($1)
    (*jenv)->ReleaseIntArrayElements(jenv, $input, (jint *)$1, 0);
}

/* Log records: a long[] of six longs a record (flow id, size, flags, seq,
 * tx_ns, rx_ns), the layout LogRecord.pack writes; the receiver listener
 * hands records to Java in the same layout. */
%{
#define ITGJ_RECORD_LONGS 6

/* Copies n records into fields (ITGJ_RECORD_LONGS a record). */
static void itgj_records_pack(const itg_logrec *recs, size_t n, jlong *fields)
{
  size_t i;
  for (i = 0; i < n; i++, fields += ITGJ_RECORD_LONGS) {
    fields[0] = (jlong)recs[i].flow_id;
    fields[1] = (jlong)recs[i].size;
    fields[2] = (jlong)recs[i].flags;
    fields[3] = (jlong)recs[i].seq;
    fields[4] = (jlong)recs[i].tx_ns;
    fields[5] = (jlong)recs[i].rx_ns;
  }
}

/* The records packed in a long[], in a malloc'd array with *n set; NULL
 * with a Java exception pending on a bad length or without memory. */
static itg_logrec *itgj_records_unpack(JNIEnv *jenv, jlongArray a, size_t *n)
{
  itg_logrec *recs;
  jlong *f;
  jsize len;
  size_t i;
  *n = 0;
  if (!a) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "no records");
    return NULL;
  }
  len = (*jenv)->GetArrayLength(jenv, a);
  if (len % ITGJ_RECORD_LONGS != 0) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException,
                            "records are six longs each");
    return NULL;
  }
  recs = (itg_logrec *)malloc(len > 0 ? (size_t)len / ITGJ_RECORD_LONGS * sizeof *recs : 1);
  if (!recs) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "records");
    return NULL;
  }
  f = (*jenv)->GetLongArrayElements(jenv, a, NULL);
  if (!f) {
    free(recs);
    return NULL;
  }
  *n = (size_t)len / ITGJ_RECORD_LONGS;
  for (i = 0; i < *n; i++) {
    const jlong *r = f + i * ITGJ_RECORD_LONGS;
    recs[i].flow_id = (uint32_t)r[0];
    recs[i].size = (uint16_t)r[1];
    recs[i].flags = (uint16_t)r[2];
    recs[i].seq = (uint64_t)r[3];
    recs[i].tx_ns = (int64_t)r[4];
    recs[i].rx_ns = (int64_t)r[5];
  }
  (*jenv)->ReleaseLongArrayElements(jenv, a, f, JNI_ABORT);
  return recs;
}
%}

%typemap(jni) (const itg_logrec *ITG_RECORDS_IN, size_t ITG_COUNT) "jlongArray"
%typemap(jtype) (const itg_logrec *ITG_RECORDS_IN, size_t ITG_COUNT) "long[]"
%typemap(jstype) (const itg_logrec *ITG_RECORDS_IN, size_t ITG_COUNT) "long[]"
%typemap(javain) (const itg_logrec *ITG_RECORDS_IN, size_t ITG_COUNT) "$javainput"
%typemap(in) (const itg_logrec *ITG_RECORDS_IN, size_t ITG_COUNT) {
  $1 = itgj_records_unpack(jenv, $input, &$2);
  if (!$1)
    return $null;
}
%typemap(freearg) (const itg_logrec *ITG_RECORDS_IN, size_t ITG_COUNT) {
  free((void *)$1);
}

/* A size given back on the side: a one-element long[]. */
%typemap(jni) size_t *ITG_SIZE_OUT "jlongArray"
%typemap(jtype) size_t *ITG_SIZE_OUT "long[]"
%typemap(jstype) size_t *ITG_SIZE_OUT "long[]"
%typemap(javain) size_t *ITG_SIZE_OUT "$javainput"
%typemap(in) size_t *ITG_SIZE_OUT (size_t size = 0) {
  if (!$input || (*jenv)->GetArrayLength(jenv, $input) < 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException,
                            "no place for the size");
    return $null;
  }
  $1 = &size;
}
%typemap(argout) size_t *ITG_SIZE_OUT {
  jlong v = (jlong)size$argnum;
  (*jenv)->SetLongArrayRegion(jenv, $input, 0, 1, &v);
}

/* Lists of words or paths: a byte[][] of C strings (Text.cStrings). */
%{
/* Copies an array of C strings (byte[] each, NUL-terminated) into a
 * NULL-terminated array of malloc'd strings. Returns it with *n set, or
 * NULL with a Java exception pending. */
static char **itgj_strings(JNIEnv *jenv, jobjectArray a, size_t *n)
{
  char **v;
  jsize i, count;
  *n = 0;
  if (!a) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "no list");
    return NULL;
  }
  count = (*jenv)->GetArrayLength(jenv, a);
  v = (char **)calloc((size_t)count + 1, sizeof *v);
  if (!v) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "list");
    return NULL;
  }
  for (i = 0; i < count; i++) {
    jbyteArray s = (jbyteArray)(*jenv)->GetObjectArrayElement(jenv, a, i);
    jsize len = s ? (*jenv)->GetArrayLength(jenv, s) : 0;
    v[i] = len > 0 ? (char *)malloc((size_t)len) : NULL;
    if (v[i])
      (*jenv)->GetByteArrayRegion(jenv, s, 0, len, (jbyte *)v[i]);
    if (s)
      (*jenv)->DeleteLocalRef(jenv, s);
    if (!v[i] || v[i][len - 1] != 0 || memchr(v[i], 0, (size_t)len) != &v[i][len - 1]) {
      count = i + 1;
      for (i = 0; i < count; i++)
        free(v[i]);
      free(v);
      SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException,
                              "not a list of NUL-terminated strings");
      return NULL;
    }
  }
  *n = (size_t)count;
  return v;
}

/* Frees what itgj_strings returned. */
static void itgj_strings_free(char **v, size_t n)
{
  size_t i;
  if (!v)
    return;
  for (i = 0; i < n; i++)
    free(v[i]);
  free(v);
}
%}

%typemap(jni) (int ITG_ARGC, const char *const *ITG_ARGV),
    (const char *const *ITG_PATHS, size_t ITG_COUNT) "jobjectArray"
%typemap(jtype) (int ITG_ARGC, const char *const *ITG_ARGV),
    (const char *const *ITG_PATHS, size_t ITG_COUNT) "byte[][]"
%typemap(jstype) (int ITG_ARGC, const char *const *ITG_ARGV),
    (const char *const *ITG_PATHS, size_t ITG_COUNT) "byte[][]"
%typemap(javain) (int ITG_ARGC, const char *const *ITG_ARGV),
    (const char *const *ITG_PATHS, size_t ITG_COUNT) "$javainput"
%typemap(in) (int ITG_ARGC, const char *const *ITG_ARGV) (size_t count = 0) {
  $2 = ($2_ltype)itgj_strings(jenv, $input, &count);
  if (!$2)
    return $null;
  if (count > INT_MAX) {
    itgj_strings_free((char **)$2, count);
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException, "too many words");
    return $null;
  }
  $1 = (int)count;
}
%typemap(freearg) (int ITG_ARGC, const char *const *ITG_ARGV) {
  itgj_strings_free((char **)$2, count$argnum);
}
%typemap(in) (const char *const *ITG_PATHS, size_t ITG_COUNT) {
  $1 = ($1_ltype)itgj_strings(jenv, $input, &$2);
  if (!$1)
    return $null;
}
%typemap(freearg) (const char *const *ITG_PATHS, size_t ITG_COUNT) {
  itgj_strings_free((char **)$1, $2);
}

/* ---- what Java does not use ---------------------------------------------- */

/* The header's version; Itg.version() gives the library's. */
%ignore ITG_VERSION_STRING;

/* The callbacks need a JNI trampoline: see the receiver listener below. */
%ignore itg_receiver_cfg::on_records;
%ignore itg_receiver_cfg::on_flow;
%ignore itg_receiver_cfg::user;
/* The log server's sessions are counted in its stats instead. */
%ignore itg_logserver_cfg::on_session;
%ignore itg_logserver_cfg::user;
%ignore itg_log_session_cb;
%ignore itg_log_session_event;
/* A log error is told on a C writer thread, which Java does not attach
 * to; the receiver's flow events carry the count (log_lost). */
%ignore itg_receiver_cfg::on_log_error;
%ignore itg_sender_cfg::on_log_error;
%ignore itg_sender_cfg::log_error_user;
%ignore itg_log_error;
%ignore itg_log_error_cb;
/* Memory handed over with itg_free; Java reads traces through the sender. */
%ignore itg_dist_read_file;
%ignore itg_free;
/* The logger's producers are C threads (the sender's and receiver's); its
 * configuration holds a borrowed path Java could not keep alive. */
%ignore itg_logger_cfg;
%ignore itg_logger_stats;
%ignore itg_logger_cfg_init;
%ignore itg_logger_new;
%ignore itg_logger_push;
%ignore itg_logger_get_stats;
%ignore itg_logger_close;
%ignore itg_logger_close_stats;
/* Pacing stays in C: only the clocks are offered. */
%ignore itg_pacer;
%ignore itg_pacer_stats;
%ignore itg_pacer_new;
%ignore itg_pacer_free;
%ignore itg_pacer_advance;
%ignore itg_pacer_next;
%ignore itg_pacer_wait_until;
%ignore itg_pacer_wait;
%ignore itg_pacer_get_stats;

%include "itg_core.i"

/* ---- flow settings kept by Java ------------------------------------------- */

%inline %{
/* A Flow made from settings the library holds (an experiment's flows)
 * keeps them as the bytes of their itg_flow_cfg: the struct holds no
 * pointer, so its bytes are the whole value, and they come back only into
 * this JNI library, linked with the libitg whose layout they have. */

/* Returns the bytes a saved configuration takes. */
size_t itgj_flow_cfg_bytes(void)
{
  return sizeof(itg_flow_cfg);
}

/* Copies cfg into buf[0..len), len being itgj_flow_cfg_bytes(). Returns
 * 0, or ITG_EINVAL for another len, buf untouched. */
int itgj_flow_cfg_save(const itg_flow_cfg *cfg, uint8_t *buf, size_t len)
{
  if (!cfg || !buf || len != sizeof *cfg)
    return ITG_EINVAL;
  memcpy(buf, cfg, sizeof *cfg);
  return 0;
}

/* Replaces cfg with what itgj_flow_cfg_save put in buf[0..len). Returns
 * 0, or ITG_EINVAL for a len that is not itgj_flow_cfg_bytes(), cfg
 * untouched. */
int itgj_flow_cfg_load(itg_flow_cfg *cfg, const uint8_t *buf, size_t len)
{
  if (!cfg || !buf || len != sizeof *cfg)
    return ITG_EINVAL;
  memcpy(cfg, buf, sizeof *cfg);
  return 0;
}
%}

/* ---- the receiver's callbacks, delivered to a Java object ------------------ */

%typemap(in, numinputs=0) JNIEnv *ITG_JENV "$1 = jenv;"
%apply JNIEnv *ITG_JENV { JNIEnv *jenv };

%{
/* Where a receiver's callbacks go: a Java object with the methods
 *   void records(long[] fields)      the records, packed as for
 *                                    ITG_RECORDS_IN
 *   void flow(int kind, long flowId, int proto, int meter, int port,
 *             byte[] peer, long packets, long bytes, long sent,
 *             boolean sentKnown, int status, byte[] message)
 * called on the receiver's thread, which is attached to the JVM for the
 * length of each call (it is a C thread the JVM does not know). */
typedef struct itgj_listener {
  JavaVM *vm;
  jobject target; /* a global reference */
  jmethodID records;
  jmethodID flow;
} itgj_listener;

/* The JNIEnv of the calling thread, attaching it if needed (*attached then
 * says to detach when done). NULL if the JVM refuses. */
static JNIEnv *itgj_enter(itgj_listener *l, int *attached)
{
  JNIEnv *env = NULL;
  jint rc = (*l->vm)->GetEnv(l->vm, (void **)&env, JNI_VERSION_1_6);
  *attached = 0;
  if (rc == JNI_EDETACHED) {
    if ((*l->vm)->AttachCurrentThreadAsDaemon(l->vm, (void **)&env, NULL) != JNI_OK)
      return NULL;
    *attached = 1;
  } else if (rc != JNI_OK) {
    return NULL;
  }
  return env;
}

/* Ends a call into Java: the listener's Java side catches what its methods
 * throw, so an exception still pending here (one JNI itself raised, such as
 * an OutOfMemoryError) has nowhere to go and is dropped. */
static void itgj_leave(itgj_listener *l, JNIEnv *env, int attached)
{
  if ((*env)->ExceptionCheck(env))
    (*env)->ExceptionClear(env);
  if (attached)
    (*l->vm)->DetachCurrentThread(l->vm);
}

static void itgj_on_records(const itg_logrec *recs, size_t n, void *user)
{
  itgj_listener *l = (itgj_listener *)user;
  int attached;
  JNIEnv *env = itgj_enter(l, &attached);
  jlongArray a;
  jlong *f;
  if (!env)
    return;
  if (n > (size_t)INT32_MAX / ITGJ_RECORD_LONGS)
    goto out_leave;
  a = (*env)->NewLongArray(env, (jsize)(n * ITGJ_RECORD_LONGS));
  if (!a)
    goto out_leave;
  f = (*env)->GetLongArrayElements(env, a, NULL);
  if (!f)
    goto out_free_array;
  itgj_records_pack(recs, n, f);
  (*env)->ReleaseLongArrayElements(env, a, f, 0);
  (*env)->CallVoidMethod(env, l->target, l->records, a);
out_free_array:
  (*env)->DeleteLocalRef(env, a);
out_leave:
  itgj_leave(l, env, attached);
}

static void itgj_on_flow(const itg_flow_event *ev, void *user)
{
  itgj_listener *l = (itgj_listener *)user;
  int attached;
  JNIEnv *env = itgj_enter(l, &attached);
  jbyteArray peer, message;
  if (!env)
    return;
  peer = itgj_bytes(env, ev->peer, sizeof ev->peer);
  message = itgj_bytes(env, ev->message, sizeof ev->message);
  if (peer && message)
    (*env)->CallVoidMethod(env, l->target, l->flow, (jint)ev->kind,
                           (jlong)ev->flow_id, (jint)ev->proto,
                           (jint)ev->meter, (jint)ev->port, peer,
                           (jlong)ev->packets, (jlong)ev->bytes,
                           (jlong)ev->sent, (jboolean)(ev->sent_known != 0),
                           (jint)ev->status, message);
  if (peer)
    (*env)->DeleteLocalRef(env, peer);
  if (message)
    (*env)->DeleteLocalRef(env, message);
  itgj_leave(l, env, attached);
}
%}

%inline %{
typedef struct itgj_listener itgj_listener;

/* Routes cfg's callbacks to target (records and flows say which), and
 * returns the listener, to free with itgj_listener_free once the receiver
 * using cfg is freed. Returns NULL with a Java exception pending if
 * target lacks the methods or memory runs out. */
itgj_listener *itgj_listener_new(JNIEnv *jenv, itg_receiver_cfg *cfg,
                                 jobject target, int records, int flows)
{
  itgj_listener *l;
  jclass cls;
  if (!cfg || !target) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "listener");
    return NULL;
  }
  l = (itgj_listener *)calloc(1, sizeof *l);
  if (!l) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, "listener");
    return NULL;
  }
  cls = (*jenv)->GetObjectClass(jenv, target);
  l->records = (*jenv)->GetMethodID(jenv, cls, "records", "([J)V");
  if (l->records)
    l->flow = (*jenv)->GetMethodID(jenv, cls, "flow", "(IJIII[BJJJZI[B)V");
  (*jenv)->DeleteLocalRef(jenv, cls);
  if (!l->records || !l->flow || (*jenv)->GetJavaVM(jenv, &l->vm) != JNI_OK)
    goto out_free;
  l->target = (*jenv)->NewGlobalRef(jenv, target);
  if (!l->target)
    goto out_free;
  cfg->on_records = records ? itgj_on_records : NULL;
  cfg->on_flow = flows ? itgj_on_flow : NULL;
  cfg->user = l;
  return l;
out_free:
  free(l);
  if (!(*jenv)->ExceptionCheck(jenv))
    SWIG_JavaThrowException(jenv, SWIG_JavaRuntimeException, "listener");
  return NULL;
}

/* Frees a listener (NULL is accepted); no receiver may use it any more. */
void itgj_listener_free(JNIEnv *jenv, itgj_listener *l)
{
  if (!l)
    return;
  (*jenv)->DeleteGlobalRef(jenv, l->target);
  free(l);
}
%}

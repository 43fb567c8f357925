/* metrics_http.c: see metrics_http.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "metrics_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#define MAX_REQUESTS 4                /* requests answered at once; more wait in the backlog */
#define IO_TIMEOUT_S 5                /* a client this slow to send or read is dropped, seconds */
#define REQUEST_MAX 8192              /* bytes of a request's head read at most */

struct tapo_metrics_http {
    tapo_metrics *metrics;
    char *address;
    char *url;
    GThread *thread;
    GMainContext *context;
    GMainLoop *loop;
    GSocketService *service;
    GMutex lock;                      /* the start's outcome, for the thread that waits for it */
    GCond started;
    bool ready;
    GError *error;
};

/* ---- one request --------------------------------------------------------- */

static void respond(GOutputStream *out, const char *status, const char *type, const char *extra,
                    const char *body, gsize len, bool head)
{
    char *header = g_strdup_printf("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %" G_GSIZE_FORMAT
                                   "\r\n%sConnection: close\r\n\r\n", status, type, len, extra ? extra : "");
    if (g_output_stream_write_all(out, header, strlen(header), NULL, NULL, NULL) && !head && len)
        g_output_stream_write_all(out, body, len, NULL, NULL, NULL);
    g_free(header);
}

static void respond_text(GOutputStream *out, const char *status, const char *extra, const char *text, bool head)
{
    respond(out, status, "text/plain; charset=utf-8", extra, text, strlen(text), head);
}

/* Reads the request's head (up to an empty line); false when the client
 * sent none in time. */
static bool read_head(GInputStream *in, char *buf, gsize size)
{
    gsize used = 0;
    buf[0] = '\0';
    while (used + 1 < size) {
        gssize n = g_input_stream_read(in, buf + used, size - 1 - used, NULL, NULL);
        if (n <= 0)
            break;
        used += (gsize)n;
        buf[used] = '\0';
        if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
            return true;
    }
    return used > 0 && strchr(buf, '\n');
}

static gboolean on_request(GThreadedSocketService *service, GSocketConnection *connection, GObject *source,
                           gpointer data)
{
    (void)service;
    (void)source;
    tapo_metrics_http *h = data;
    g_socket_set_timeout(g_socket_connection_get_socket(connection), IO_TIMEOUT_S);
    GInputStream *in = g_io_stream_get_input_stream(G_IO_STREAM(connection));
    GOutputStream *out = g_io_stream_get_output_stream(G_IO_STREAM(connection));
    char *request = g_malloc(REQUEST_MAX);
    char method[16], target[1024];
    if (!read_head(in, request, REQUEST_MAX) || sscanf(request, "%15s %1023s HTTP/%*d.%*d", method, target) != 2) {
        respond_text(out, "400 Bad Request", NULL, "A GET request for /metrics, please.\n", false);
    } else {
        bool head = strcmp(method, "HEAD") == 0;
        char *query = strchr(target, '?');
        if (query)
            *query = '\0';
        if (!head && strcmp(method, "GET") != 0) {
            respond_text(out, "405 Method Not Allowed", "Allow: GET, HEAD\r\n", "GET or HEAD only.\n", false);
        } else if (strcmp(target, "/metrics") == 0) {
            GString *text = tapo_metrics_render(h->metrics);
            respond(out, "200 OK", TAPO_METRICS_CONTENT_TYPE, NULL, text->str, text->len, head);
            g_string_free(text, TRUE);
        } else if (strcmp(target, "/") == 0) {
            respond_text(out, "200 OK", NULL, "tapo: why TCP connections stalled. Metrics: /metrics\n", head);
        } else {
            respond_text(out, "404 Not Found", NULL, "Not found: the metrics are at /metrics\n", head);
        }
    }
    g_free(request);
    g_io_stream_close(G_IO_STREAM(connection), NULL, NULL);
    return TRUE;
}

/* ---- listening ----------------------------------------------------------- */

/* Adds every address of "HOST:PORT" or ":PORT"; the port picked for the
 * first is used for the others. */
static bool listen_on(tapo_metrics_http *h, GError **error)
{
    GSocketListener *listener = G_SOCKET_LISTENER(h->service);
    const char *colon = strrchr(h->address, ':');
    if (!colon || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) || strlen(colon + 1) > 5 ||
        atoi(colon + 1) > 65535) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--metrics %s: give an address and a port, e.g. 127.0.0.1:9977 or :9977", h->address);
        return false;
    }
    guint16 port = (guint16)atoi(colon + 1);
    if (colon == h->address) {
        if (port == 0)
            port = g_socket_listener_add_any_inet_port(listener, NULL, error);
        else if (!g_socket_listener_add_inet_port(listener, port, NULL, error))
            port = 0;
        if (port == 0)
            return false;
        h->url = g_strdup_printf("http://0.0.0.0:%u/metrics", port);
        return true;
    }
    GSocketConnectable *where = g_network_address_parse(h->address, 0, error);
    if (!where)
        return false;
    GSocketAddressEnumerator *e = g_socket_connectable_enumerate(where);
    GSocketAddress *a;
    GError *failure = NULL;
    unsigned added = 0;
    while ((a = g_socket_address_enumerator_next(e, NULL, added ? NULL : &failure))) {
        GInetAddress *ip = g_inet_socket_address_get_address(G_INET_SOCKET_ADDRESS(a));
        GSocketAddress *bind_to = g_inet_socket_address_new(ip, port);
        GSocketAddress *effective = NULL;
        if (g_socket_listener_add_address(listener, bind_to, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, NULL,
                                          &effective, added ? NULL : &failure)) {
            if (!added++) {
                port = g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(effective));
                char *text = g_inet_address_to_string(ip);
                bool v6 = g_inet_address_get_family(ip) == G_SOCKET_FAMILY_IPV6;
                h->url = g_strdup_printf(v6 ? "http://[%s]:%u/metrics" : "http://%s:%u/metrics", text, port);
                g_free(text);
            }
            g_object_unref(effective);
        }
        g_object_unref(bind_to);
        g_object_unref(a);
    }
    g_object_unref(e);
    g_object_unref(where);
    if (added)
        g_clear_error(&failure);
    else if (failure)
        g_propagate_prefixed_error(error, failure, "--metrics %s: ", h->address);
    else
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "--metrics %s: no such address", h->address);
    return added > 0;
}

static gpointer serve(gpointer data)
{
    tapo_metrics_http *h = data;
    g_main_context_push_thread_default(h->context);
    h->service = g_threaded_socket_service_new(MAX_REQUESTS);
    g_signal_connect(h->service, "run", G_CALLBACK(on_request), h);
    GError *error = NULL;
    bool ok = listen_on(h, &error);
    g_mutex_lock(&h->lock);
    h->ready = true;
    h->error = error;
    g_cond_signal(&h->started);
    g_mutex_unlock(&h->lock);
    if (ok)
        g_main_loop_run(h->loop);
    g_socket_service_stop(h->service);
    g_socket_listener_close(G_SOCKET_LISTENER(h->service));
    g_object_unref(h->service);
    g_main_context_pop_thread_default(h->context);
    return NULL;
}

tapo_metrics_http *tapo_metrics_http_start(const char *address, tapo_metrics *m, GError **error)
{
    tapo_metrics_http *h = g_new0(tapo_metrics_http, 1);
    h->metrics = m;
    h->address = g_strdup(address);
    h->context = g_main_context_new();
    h->loop = g_main_loop_new(h->context, FALSE);
    g_mutex_init(&h->lock);
    g_cond_init(&h->started);
    h->thread = g_thread_new("tapo-metrics", serve, h);
    g_mutex_lock(&h->lock);
    while (!h->ready)
        g_cond_wait(&h->started, &h->lock);
    g_mutex_unlock(&h->lock);
    if (h->error) {
        g_propagate_error(error, h->error);
        h->error = NULL;
        tapo_metrics_http_stop(h);
        return NULL;
    }
    return h;
}

const char *tapo_metrics_http_url(const tapo_metrics_http *h)
{
    return h->url;
}

static gboolean quit(gpointer loop)
{
    g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

void tapo_metrics_http_stop(tapo_metrics_http *h)
{
    if (!h)
        return;
    /* Through the loop's own context: a quit before it runs would be lost. */
    GSource *idle = g_idle_source_new();
    g_source_set_callback(idle, quit, h->loop, NULL);
    g_source_attach(idle, h->context);
    g_source_unref(idle);
    g_thread_join(h->thread);
    g_main_loop_unref(h->loop);
    g_main_context_unref(h->context);
    g_mutex_clear(&h->lock);
    g_cond_clear(&h->started);
    g_free(h->address);
    g_free(h->url);
    g_free(h);
}

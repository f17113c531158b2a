// SPDX-License-Identifier: GPL-2.0
/*
 * Icons for the server, tools, resources and prompts.  2025-11-25 added
 * "icons" to Implementation, Tool, Resource, ResourceTemplate and Prompt
 * (kept in 2026-07-28); older revisions do not define the key, so their
 * sessions do not get it.  Each icon is a small SVG carried in a data: URI:
 * no fetch, nothing to host, and "sizes":["any"] since it scales.
 */
#include <string.h>

#include "mcp/mcp_int.h"
#include "mcp/mcp_tools.h"

#define SVG "data:image/svg+xml;base64,"

static const char *const icons[MCP_ICON__COUNT] = {
	[MCP_ICON_SERVER] = SVG /* a chart in a screen */
	"PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAy"
	"NCAyNCIgZmlsbD0ibm9uZSIgc3Ryb2tlPSIjMmI2Y2IwIiBzdHJva2Utd2lkdGg9IjIiPjxy"
	"ZWN0IHg9IjMiIHk9IjQiIHdpZHRoPSIxOCIgaGVpZ2h0PSIxNiIgcng9IjIiLz48cGF0aCBk"
	"PSJNNyAxNWwzLTQgMyAzIDQtNiIvPjwvc3ZnPg==",
	[MCP_ICON_TRACE] = SVG /* a document */
	"PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAy"
	"NCAyNCIgZmlsbD0ibm9uZSIgc3Ryb2tlPSIjMmI2Y2IwIiBzdHJva2Utd2lkdGg9IjIiPjxw"
	"YXRoIGQ9Ik02IDJoOWw1IDV2MTVINnoiLz48cGF0aCBkPSJNOSAxMmg4TTkgMTZoNSIvPjwv"
	"c3ZnPg==",
	[MCP_ICON_ANALYSIS] = SVG /* three bars */
	"PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAy"
	"NCAyNCIgZmlsbD0iIzJiNmNiMCI+PHJlY3QgeD0iMyIgeT0iMTIiIHdpZHRoPSI0IiBoZWln"
	"aHQ9IjkiLz48cmVjdCB4PSIxMCIgeT0iNiIgd2lkdGg9IjQiIGhlaWdodD0iMTUiLz48cmVj"
	"dCB4PSIxNyIgeT0iOSIgd2lkdGg9IjQiIGhlaWdodD0iMTIiLz48L3N2Zz4=",
	[MCP_ICON_LIVE] = SVG /* a recording dot */
	"PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAy"
	"NCAyNCIgZmlsbD0ibm9uZSIgc3Ryb2tlPSIjYzUzMDMwIiBzdHJva2Utd2lkdGg9IjIiPjxj"
	"aXJjbGUgY3g9IjEyIiBjeT0iMTIiIHI9IjkiLz48Y2lyY2xlIGN4PSIxMiIgY3k9IjEyIiBy"
	"PSI0IiBmaWxsPSIjYzUzMDMwIi8+PC9zdmc+",
	[MCP_ICON_PROFILE] = SVG /* a flame graph */
	"PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAy"
	"NCAyNCIgZmlsbD0iI2RkNmIyMCI+PHJlY3QgeD0iMiIgeT0iMTgiIHdpZHRoPSIyMCIgaGVp"
	"Z2h0PSI0Ii8+PHJlY3QgeD0iNCIgeT0iMTMiIHdpZHRoPSIxMiIgaGVpZ2h0PSI0Ii8+PHJl"
	"Y3QgeD0iNiIgeT0iOCIgd2lkdGg9IjYiIGhlaWdodD0iNCIvPjwvc3ZnPg==",
	[MCP_ICON_PROMPT] = SVG /* a speech bubble */
	"PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAy"
	"NCAyNCIgZmlsbD0ibm9uZSIgc3Ryb2tlPSIjMmI2Y2IwIiBzdHJva2Utd2lkdGg9IjIiPjxw"
	"YXRoIGQ9Ik00IDRoMTZ2MTJIOWwtNSA0eiIvPjxwYXRoIGQ9Ik05IDEwaC4wMU0xMyAxMGgu"
	"MDEiLz48L3N2Zz4=",
};

static bool icons_defined(const struct mcp_server *s)
{
	/* revision names are dates: later ones sort after */
	/* s->proto is set as initialize begins its answer; empty before */
	return s->modern || (s->proto[0] && strcmp(s->proto, "2025-11-25") >= 0);
}

void mcp_icons(const struct mcp_server *s, struct scx_jw *w, enum mcp_icon which)
{
	if (!icons_defined(s))
		return;
	scx_jw_key(w, "icons");
	scx_jw_arr_begin(w);
	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "src", icons[which]);
	scx_jw_kstr(w, "mimeType", "image/svg+xml");
	scx_jw_key(w, "sizes");
	scx_jw_arr_begin(w);
	scx_jw_str(w, "any");
	scx_jw_arr_end(w);
	scx_jw_obj_end(w);
	scx_jw_arr_end(w);
}

enum mcp_icon mcp_tool_icon(const struct mcp_tool *t)
{
	if (strstr(t->name, "perf_"))
		return MCP_ICON_PROFILE;
	if (t->flags & MCP_T_LIVE)
		return MCP_ICON_LIVE;
	if (t->fn == mcp_t_load || t->fn == mcp_t_list || t->fn == mcp_t_unload ||
	    t->fn == mcp_t_export)
		return MCP_ICON_TRACE;
	return MCP_ICON_ANALYSIS;
}

enum mcp_icon mcp_resource_icon(const char *uri)
{
	return !strncmp(uri, "trace://", 8) ? MCP_ICON_TRACE : MCP_ICON_LIVE;
}

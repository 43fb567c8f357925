# core/capture, core/wire, core/table: from capture files and frame bytes to the analysis core's
# packets: reading captures, link and network decoding, what Wireshark's TCP
# dissector derives for each segment, and the table of connections.  The
# plugin and the batch analyser both read captures through it (wiretap, and
# the Wireshark headers give the link types' numbers).
pkg_check_modules(WIRESHARK_HEADERS REQUIRED IMPORTED_TARGET wireshark>=4.0)

add_library(tapo_frames STATIC
    capture/capture.c
    capture/pcap_file.c
    wire/decode.c
    wire/udp_tunnels.c
    wire/endpoints.c
    wire/flow_identity.c
    wire/wire_state.c
    table/connection_table.c
    table/flow_index.c
    table/episode_stalls.c
    table/table_feed.c
)
set_target_properties(tapo_frames PROPERTIES
    C_STANDARD 11 C_STANDARD_REQUIRED ON POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
target_include_directories(tapo_frames PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_options(tapo_frames PRIVATE ${TAPO_WARNINGS})
target_include_directories(tapo_frames PRIVATE
    $<TARGET_PROPERTY:PkgConfig::WIRESHARK_HEADERS,INTERFACE_INCLUDE_DIRECTORIES>)
find_library(TAPO_WIRETAP_LIB wiretap REQUIRED)
target_link_libraries(tapo_frames PUBLIC tapo_analysis ${TAPO_WIRETAP_LIB})
